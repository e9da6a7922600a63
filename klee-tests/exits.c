// Calls that end the process (Function::ends_process; --pspa-follow-exits). store(v) puts a
// new cell at the head of `list`; xmalloc resets each block it returns, and when the
// size is over the symbolic `budget` it calls fatal(pool[budget & 3]) instead, which
// resets that pool cell (one of four globals), sets `cleaned` and exits; exit then runs main's atexit handler,
// which sets `cleaned` again. fatal() has no `ret` and an `unreachable` (after exit): it
// ends the process. What it runs is never seen by code after xmalloc() or store()
// returns, so their answers leave it out by default.
// Five paths: budget below 16 (fatal at the first store), one per cell fatal may get,
// and the other.
// - --pspa-check: accesses inside fatal (its reset, `cleaned`) and inside exit (the
//   handler) are not held to store's and xmalloc's answers: 0 outside, and some counted
//   "under a call that ends the process". Without that rule the check reports them
//   (they are not in the sets).
// - --pspa-resolve: reset's `c->x = 0` on fatal's path has a symbolic address. fatal's
//   call has a symbolic pointer argument, so the snapshot that would answer is xmalloc's,
//   whose answer knows reset's pointer only from xmalloc's own call of it (a heap block)
//   and would skip the four cells (validated, they were 4 mismatches): the resolution is
//   left to KLEE (counted). 0 mismatches.
// - --pspa-follow-exits: the answers follow fatal and exit; nothing is left out, the
//   same 0 outside and 0 mismatches, and nothing counted under an ending call.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.cut %t.follow
// RUN: %klee --libc=uclibc --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 5
// RUN: %klee --libc=uclibc --pspa-analyze=store,xmalloc --pspa-check --pspa-resolve --pspa-resolve-snapshots=all --pspa-resolve-validate --output-dir=%t.cut %t.bc 2>&1 | %FileCheck %s --check-prefixes=CHECK,CUT
// RUN: %klee --libc=uclibc --pspa-analyze=store,xmalloc --pspa-check --pspa-resolve --pspa-resolve-snapshots=all --pspa-resolve-validate --pspa-follow-exits --output-dir=%t.follow %t.bc 2>&1 | %FileCheck %s --check-prefixes=CHECK,FOLLOW
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// CUT: under a call that ends the process (not the call's) = {{[1-9][0-9]*}},
// FOLLOW: under a call that ends the process (not the call's) = 0,
// CHECK: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = {{[0-9]+}}, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// CUT: under a call that ends the process = {{[1-9][0-9]*}}
// FOLLOW: under a call that ends the process = 0
// CHECK: KLEE: done: completed paths = 5
#include "klee/klee.h"
#include <stdlib.h>

struct cell {
  int x;
  struct cell *next;
};

struct cell a0, a1, a2, a3;
struct cell *pool[4] = {&a0, &a1, &a2, &a3};
struct cell *list;
int cleaned, budget;

void reset(struct cell *c) {
  c->x = 0;
  c->next = 0;
}

void fatal(struct cell *c) {
  reset(c);
  cleaned = 1;
  exit(2);
}

void *xmalloc(unsigned n) {
  if (n > (unsigned)budget)
    fatal(pool[budget & 3]);
  struct cell *p = malloc(n);
  reset(p);
  return p;
}

void store(int v) {
  struct cell *c = xmalloc(sizeof *c);
  c->x = v;
  c->next = list;
  list = c;
}

void cleanup(void) { cleaned = 2; }

int main(void) {
  atexit(cleanup);
  klee_make_symbolic(&budget, sizeof budget, "budget");
  store(1);
  store(2);
  return list->x;
}
