// An error inside a skipped call, found by its recovery: fill(a, n) writes a[0..n), and n
// may be 5, one past a[4]. main then reads a[0], which fill writes: fill is recovered, its
// loop forks on n (n = 1..5; main assumes 1 <= n <= 5), and the path n == 5 writes out of
// bounds. KLEE reports that error from the recovery state, at fill's line, as it does
// without chopping; that recovery path ends (1 recovery ended by an error) and the waiting
// path goes on with the four others: 4 completed paths in both runs.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: ERROR: {{.*}}chop_error.c:{{[0-9]+}}: memory error: out of bound pointer
// BASE: KLEE: done: completed paths = 4
// RUN: %klee --skip-functions=fill --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=fill --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP: KLEE: ERROR: {{.*}}chop_error.c:{{[0-9]+}}: memory error: out of bound pointer
// CHOP: KLEE: done: recovery states = 1
// CHOP: KLEE: done: created snapshots = 1
// CHOP: KLEE: done: pspa chop: recoveries ended before returning = 1
// CHOP: KLEE: done: completed paths = 4
// RUN: %python %checks same-errors %t.base %t.pspa
// RUN: %python %checks same-errors %t.base %t.spa
#include "klee/klee.h"
#include <assert.h>

int a[4];

void fill(int *p, int n) {
  for (int i = 0; i < n; i++)
    p[i] = 1;
}

int main(void) {
  int n;
  klee_make_symbolic(&n, sizeof n, "n");
  klee_assume(n >= 1 & n <= 5);
  fill(a, n);
  klee_assert(a[0] == 1);
  return 0;
}
