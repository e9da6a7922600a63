// A pointer made symbolic inside an analysed call (issue: resolution that saves queries;
// KLEE's own klee-stats/KleeStatsBranches.c does this). memop makes its local p symbolic,
// then dereferences it: p may be g1 or g2. The analysis sees no pointer stored into p (its
// set is empty), so the set must not prune: an address built from data made symbolic
// since the snapshot is resolved as KLEE does. memop's first call has no snapshot (lazy:
// it marks memop); the second has one, taken before p was made symbolic: its dereference,
// on each of the first call's two paths, is resolved by KLEE (2). Two ways per call: 4
// paths, as KLEE alone (with an empty set the second dereference would find no object,
// an out-of-bound error instead of two paths).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.all
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 4
// RUN: %klee --pspa-resolve --pspa-resolve-validate --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: memory error
// CHECK: mismatches = 0
// CHECK: through data made symbolic since the snapshot = 2,
// CHECK: KLEE: done: completed paths = 4
// With every call's snapshot, the first call's dereference too (1 + 2).
// RUN: %klee --pspa-resolve --pspa-resolve-snapshots=all --output-dir=%t.all %t.bc 2>&1 | %FileCheck %s --check-prefix=ALL
// ALL: through data made symbolic since the snapshot = 3,
// ALL: KLEE: done: completed paths = 4
#include "klee/klee.h"

int g1, g2;

int memop(void) {
  int *p;
  klee_make_symbolic(&p, sizeof p, "p");
  klee_assume((p == &g1) | (p == &g2));
  return *p;
}

int main(void) {
  g1 = 1;
  g2 = 2;
  return memop() + memop();
}
