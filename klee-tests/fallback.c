// A pointer field that is wholly symbolic may point anywhere. With at most 2 resolutions
// allowed, the analysis of the call gives up (conservative), says so once, counts it,
// and KLEE runs to the end.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee
// RUN: %klee --pspa-analyze=use --pspa-max-resolutions=2 --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: WARNING: pspa: analysis of a call of use failed
// CHECK-NOT: pspa: analysis of a call of use failed
// CHECK: KLEE: done: pspa calls analysed = 2 (pspa)
// CHECK: KLEE: done: pspa failures = 2
// CHECK: KLEE: done: completed paths = 1
// The CSV marks both calls as failed (ok = 0).
// RUN: %FileCheck %s --check-prefix=CSV < %t.klee/pspa-calls.csv
// CSV: use,{{[0-9]+}},pspa,0,
// CSV: use,{{[0-9]+}},pspa,0,
#include "klee/klee.h"

struct s { int *p; };

int use(struct s *x) { return x->p != 0; }

int main(void) {
  struct s v;
  klee_make_symbolic(&v, sizeof v, "v");
  use(&v);
  use(&v);
  return 0;
}
