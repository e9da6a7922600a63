// Chopping, resolution pruning and WIT in one run, each giving the answers it gives alone.
//   Resolution: write_a's store through as[i % 4] (a symbolic index) forks 4 ways; the 16
//     nodes in bs come from the same allocation function, so PSPA prunes them (resolve.c
//     has the reasoning).
//   WIT: the colours at the call of work (the state then has a and b, told apart), with
//     every write checked; work forks on x > 0.
//   Chopping: log_event writes `logged`, which nothing reads (snapshots, no recovery);
//     remember writes `remembered`, which main reads last: one recovery on each of the
//     2 x 4 = 8 paths. Snapshots: log_event(1) once, remember on work's 2 paths,
//     log_event(2) on all 8 = 11.
// None of the skipped calls writes a pointer, allocates or touches what the other clients
// look at, so each client's lines are the same alone and together.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.chop %t.res %t.wit %t.all
// RUN: %klee --skip-functions=log_event,remember --output-dir=%t.chop %t.bc > %t.chop.log 2>&1
// RUN: %klee --pspa-resolve --pspa-resolve-snapshots=all --output-dir=%t.res %t.bc > %t.res.log 2>&1
// RUN: %klee --pspa-wit --pspa-wit-at=work --pspa-wit-check --output-dir=%t.wit %t.bc > %t.wit.log 2>&1
// RUN: %klee --skip-functions=log_event,remember --pspa-resolve --pspa-resolve-snapshots=all --pspa-wit --pspa-wit-at=work --pspa-wit-check --output-dir=%t.all %t.bc > %t.all.log 2>&1
// RUN: %FileCheck %s < %t.all.log
// CHECK: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = {{[1-9][0-9]*}}, snapshots = {{[0-9]+}}, mismatches = 0
// CHECK: KLEE: done: wit check: writes checked = {{[1-9][0-9]*}}, violations = 0
// CHECK: KLEE: done: recovery states = 8
// CHECK: KLEE: done: created snapshots = 11
// CHECK: KLEE: done: completed paths = 8
// RUN: %python %checks same-lines %t.chop.log %t.all.log "recovery states" "created snapshots" "pspa chop:" "completed paths"
// The resolution client snapshots every call it sees (--pspa-resolve-snapshots=all): the
// skipped calls are not run, so the counts of snapshots differ, not the answers.
// RUN: %python %checks same-lines %t.res.log %t.all.log "pspa resolve: symbolic~, snapshots" "pspa resolve: pruned" "completed paths"
// RUN: %python %checks same-lines %t.wit.log %t.all.log "wit colours" "wit transitions" "wit check" "completed paths"
// RUN: %python %checks wit-same %t.wit/wit.json %t.all/wit.json
#include "klee/klee.h"
#include <stdlib.h>

struct node {
  int val;
  struct node *next;
};

struct node *mk(int v) {
  struct node *n = malloc(sizeof *n);
  n->val = v;
  n->next = 0;
  return n;
}

#define N 4
struct node *as[N], *bs[N * N];
int logged, remembered;
char *a, *b;

void log_event(int v) { logged += v; }
void remember(int v) { remembered = v; }
void set(struct node *p, int v) { p->val = v; }
int write_a(unsigned i) {
  struct node *p = as[i % N];
  set(p, 7);
  return p->val;
}
char *alloc_buf(unsigned long n) { return malloc(n); }
int work(char x) {
  if (x > 0)
    a[0] = x;
  b[0] = 2;
  return 0;
}

int main(void) {
  for (int k = 0; k < N; k++) {
    as[k] = mk(k);
    for (int j = 0; j < N; j++)
      bs[N * k + j] = mk(100 + j);
  }
  a = alloc_buf(8);
  b = alloc_buf(8);
  unsigned i;
  char x;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_make_symbolic(&x, sizeof x, "x");
  log_event(1);
  work(x);
  remember(3);
  int r = write_a(i);
  log_event(2);
  return r + remembered;
}
