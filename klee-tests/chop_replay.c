// A chopped run's tests replay on the program compiled natively (libkleeRuntest) to the
// outcomes KLEE alone finds, path for path. The exit code depends on what the skipped calls
// computed, so a test whose input missed a recovery's branch condition would replay to a
// wrong code.
//   classify: skipped; forks three ways on x (< 0, < 100, else) and writes `mode`. main
//             reads mode: the recovery forks the waiting path three ways.
//   fill:     skipped; writes table[0..3] = 10..13. main reads table[i] at a symbolic i:
//             recovered once per path (3); table[i] == 12 forks on i == 2.
//   note:     skipped; writes `log_count`, which nothing reads: never recovered.
// Paths: 3 (mode) x 2 (i == 2 or not) = 6, exit codes mode + 4 * (i == 2):
// {1, 2, 3, 5, 6, 7}, one test each (KLEE writes a test per path without
// --only-output-states-covering-new). Every run, vanilla, PSPA and SPA, must replay to
// exactly that multiset.
// RUN: %clang %s -o %t.bc
// RUN: %cc-runtest %s -o %t.native
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 6
// RUN: %klee --skip-functions=classify,fill,note --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=classify,fill,note --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// classify once, fill once per classify path (3); note's snapshot is never recovered.
// CHOP: KLEE: done: recovery states = 4
// CHOP: KLEE: done: created snapshots = 3
// CHOP: KLEE: done: completed paths = 6
// RUN: %python %root/scripts/ktest-replay.py %t.native %t.base %t.base.csv
// RUN: %python %root/scripts/ktest-replay.py %t.native %t.pspa %t.pspa.csv
// RUN: %python %root/scripts/ktest-replay.py %t.native %t.spa %t.spa.csv
// RUN: %python %checks outcomes %t.base.csv "exit 1" "exit 2" "exit 3" "exit 5" "exit 6" "exit 7"
// RUN: %python %checks outcomes %t.pspa.csv "exit 1" "exit 2" "exit 3" "exit 5" "exit 6" "exit 7"
// RUN: %python %checks outcomes %t.spa.csv "exit 1" "exit 2" "exit 3" "exit 5" "exit 6" "exit 7"
#include "klee/klee.h"

int mode, table[4], log_count;

void classify(int x) {
  if (x < 0)
    mode = 1;
  else if (x < 100)
    mode = 2;
  else
    mode = 3;
}
void fill(int *t, int v) {
  for (int k = 0; k < 4; k++)
    t[k] = v + k;
}
void note(void) { log_count++; }

int main(void) {
  int x, i;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i >= 0 & i < 4);
  classify(x);
  fill(table, 10);
  note();
  int r = mode;
  if (table[i] == 12)
    r += 4;
  return r;
}
