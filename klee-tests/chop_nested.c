// A call recovered inside another call's recovery is older than the path's pending calls
// skipped between the two, so their writes win over its writes.
//   n writes X = 1 and Y = 1; h writes X = 2; j reads Y and writes Z = Y + 1. All three
//   are skipped, in the order n, h, j.
//   Reading Z recovers j (the oldest pending call that may write Z). Inside j's recovery
//   the read of Y recovers n there (nested): n's write of X comes along with j's bytes.
//   Reading X then must recover h, whose X = 2 is newer than n's X = 1. Before the
//   bytes carried the call that wrote them, n's X counted as j's (newer than h), h was
//   not recovered and the path read X == 1: a failing assertion KLEE alone never reports.
// Recoveries: j (with n inside it), then h: 3. One path, no error, as KLEE alone.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 1
// RUN: %klee --skip-functions=n,h,j --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=n,h,j --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP-NOT: ASSERTION FAIL
// CHOP: KLEE: done: recovery states = 3
// CHOP: KLEE: done: created snapshots = 3
// CHOP: KLEE: done: completed paths = 1
// CHOP: KLEE: done: partially completed paths = 0
#include "klee/klee.h"

int X, Y, Z;

void n(void) {
  X = 1;
  Y = 1;
}
void h(void) { X = 2; }
void j(void) { Z = Y + 1; }

int main(void) {
  n();
  h();
  j();
  klee_assert(Z == 2);
  klee_assert(X == 2);
  return 0;
}
