// Calls of declared functions after a skipped call; memory they touch is not seen by the
// load and store hooks.
//  - klee_make_symbolic(&x) after the skipped set(&x, 1) replaces x: main's read of x then
//    needs no recovery (the bytes are newer than the skip), and x == 5 is feasible, as
//    without chopping: an assertion failure at the line below, and 2 paths. Applying the
//    recovered x = 1 instead would make that branch infeasible.
//  - puts(buf) after the skipped greet(buf) is an external call (no --libc): KLEE gives it
//    memory as it is, so every pending call is recovered first, oldest first: set (whose
//    x = 1 is not applied: klee_make_symbolic's bytes are newer), then greet, so puts
//    prints "hi", as without chopping: 2 recoveries, both before the external call, and 2
//    snapshots. The later read of x needs no recovery.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// The external puts prints to KLEE's stdout, checked apart from its messages (stderr).
// RUN: %klee --output-dir=%t.base %t.bc 2>%t.base.err | %FileCheck %s --check-prefix=OUT
// RUN: %FileCheck %s --check-prefix=BASE --input-file=%t.base.err
// OUT: hi
// BASE: KLEE: ERROR: {{.*}}chop_declared.c:46: ASSERTION FAIL
// BASE: KLEE: done: completed paths = 1
// RUN: %klee --skip-functions=set,greet --output-dir=%t.pspa %t.bc 2>%t.pspa.err | %FileCheck %s --check-prefix=OUT
// RUN: %FileCheck %s --check-prefix=CHOP --input-file=%t.pspa.err
// RUN: %klee --skip-functions=set,greet --pspa-mode=spa --output-dir=%t.spa %t.bc 2>%t.spa.err | %FileCheck %s --check-prefix=OUT
// RUN: %FileCheck %s --check-prefix=CHOP --input-file=%t.spa.err
// CHOP: KLEE: ERROR: {{.*}}chop_declared.c:46: ASSERTION FAIL
// CHOP: KLEE: done: recovery states = 2
// CHOP: KLEE: done: created snapshots = 2
// CHOP: KLEE: done: pspa chop: {{.*}}recovered before an external call = 2,
// CHOP: KLEE: done: completed paths = 1
// RUN: %python %checks same-errors %t.base %t.pspa
// RUN: %python %checks same-errors %t.base %t.spa
#include "klee/klee.h"
#include <stdio.h>

int x;
char buf[3];

void set(int *p, int v) { *p = v; }
void greet(char *b) { b[0] = 'h'; b[1] = 'i'; b[2] = 0; }

int main(void) {
  set(&x, 1);
  klee_make_symbolic(&x, sizeof x, "x");
  greet(buf);
  puts(buf);
  if (x == 5)
    klee_assert(0);
  return 0;
}
