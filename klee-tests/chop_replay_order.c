// A younger call's recovery replays what the path recorded of older recovered calls, in
// program order, instead of running them again inside it.
//   n writes X = 1, Y = 1; h writes X = 2; j reads Y and writes Z = Y + 1; k reads X and
//   writes W = X + 10. All four are skipped, in the order n, h, j, k.
//   Reading Z recovers j; inside it, reading Y recovers n (nested): j's record holds Z
//   (j's write) and X, Y (n's writes). Reading X then recovers h (X = 2): h is younger
//   than n, so its X wins in the path. Reading W recovers k from its snapshot, where none
//   of n, h, j has run: the path's records of h and of j are replayed there, in that
//   order, and n's X inside j's record does not replace h's younger X. So k reads X == 2
//   and W == 12, as KLEE alone computes. Replaying j's record by its position alone would
//   give X == 1 and a false assertion failure.
// With replay: 4 recoveries (j, n inside j, h, k), 2 records replayed. Without
// (--pspa-chop-replay=false), k's recovery runs n and h again inside it: 6 recoveries.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa %t.norep
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 1
// RUN: %klee --skip-functions=n,h,j,k --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=REPLAY
// RUN: %klee --skip-functions=n,h,j,k --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=REPLAY
// REPLAY-NOT: ASSERTION FAIL
// REPLAY: KLEE: done: recovery states = 4
// REPLAY: KLEE: done: created snapshots = 4
// REPLAY: KLEE: done: pspa chop: recovered calls replayed into younger recoveries instead of run again = 2
// REPLAY: KLEE: done: completed paths = 1
// REPLAY: KLEE: done: partially completed paths = 0
// RUN: %klee --skip-functions=n,h,j,k --pspa-chop-replay=false --output-dir=%t.norep %t.bc 2>&1 | %FileCheck %s --check-prefix=NOREPLAY
// NOREPLAY-NOT: ASSERTION FAIL
// NOREPLAY: KLEE: done: recovery states = 6
// NOREPLAY: KLEE: done: completed paths = 1
#include "klee/klee.h"

int X, Y, Z, W;

void n(void) {
  X = 1;
  Y = 1;
}
void h(void) { X = 2; }
void j(void) { Z = Y + 1; }
void k(void) { W = X + 10; }

int main(void) {
  n();
  h();
  j();
  k();
  klee_assert(Z == 2);
  klee_assert(X == 2);
  klee_assert(W == 12);
  return 0;
}
