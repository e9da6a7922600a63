// --pspa-wit: WIT colours at the first call of `work` (the end of initialization), from
// the state (PSPA) and whole-program (SPA), the transitions between consecutive heap
// allocations, and --pspa-wit-check.
//
// Colours. The three buffers come from one allocation wrapper (alloc_buf). Under SPA one
// object, so the writes through a, through b (the store and strcpy) and through c (memcpy)
// share one colour. From the state after init (PSPA): three objects, three colours.
//
// Transitions. The state at work's call has, in allocation order, the buffers a, b, c
// (one field each) and cfg (fields name, path, flags); work then allocates d, written by
// d[0]. Under PSPA a, b, c, name (not written in work), path (not written), flags (written
// by work), d have seven distinct colours: 6 transitions per path. Under SPA the buffers
// share one colour; name (written by init only), path, flags and d have their own: U U U N P F D,
// 4 transitions per path. work forks two paths after the WIT point (x > 0 or not), each
// starting from the state's sequence: 12 and 8 in all.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.spa %t.input
// RUN: %klee --pspa-wit --pspa-wit-at=work --pspa-wit-check --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA: KLEE: done: wit colours = {{[0-9]+}} (heap {{[0-9]+}}), writes = {{[1-9][0-9]*}}, through unknown pointers = 0
// PSPA: KLEE: done: wit transitions = 12
// PSPA: KLEE: done: wit check: writes checked = {{[1-9][0-9]*}}, violations = 0
// PSPA: KLEE: done: completed paths = 2
// RUN: %python %checks wit %t.pspa/wit.json %s work distinct "a[0] = x" "b[0] = 2" "memcpy(c"
// RUN: %python %checks wit %t.pspa/wit.json %s work same "b[0] = 2" "strcpy(b"
// RUN: %klee --pspa-wit --pspa-wit-at=work --pspa-wit-check --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA: KLEE: done: wit transitions = 8
// SPA: KLEE: done: wit check: writes checked = {{[1-9][0-9]*}}, violations = 0
// RUN: %python %checks wit %t.spa/wit.json %s work same "a[0] = x" "b[0] = 2" "memcpy(c" "strcpy(b"
//
// The automatic point: main's load of x (to pass it) is the first read of symbolic input,
// and the first call after it is work's: the same colours.
// RUN: %klee --pspa-wit --output-dir=%t.input %t.bc 2>&1 | %FileCheck %s --check-prefix=INPUT
// INPUT: KLEE: done: wit transitions = 12
// RUN: %python %checks wit-same %t.input/wit.json %t.pspa/wit.json
#include "klee/klee.h"
#include <stdlib.h>
#include <string.h>

struct conf { char *name; char *path; int flags; };

char *alloc_buf(unsigned long n) { return malloc(n); }

struct conf *cfg;
char *a, *b, *c;

void init(void) {
  a = alloc_buf(8);
  b = alloc_buf(8);
  c = alloc_buf(8);
  cfg = malloc(sizeof *cfg);
  cfg->name = a;
}

int work(char x) {
  char *d = malloc(4);
  d[0] = 1;
  if (x > 0)
    a[0] = x;
  b[0] = 2;
  memcpy(c, "xy", 3);
  cfg->flags = 3;
  strcpy(b, "q");
  return d[0];
}

int main(void) {
  init();
  char x;
  klee_make_symbolic(&x, sizeof x, "x");
  return work(x);
}
