// Lazy snapshots stop for a function whose calls rarely need them (issue: resolution that
// saves queries). get(t, i) reads t[i % 3]->val. Its first call, with a symbolic index,
// has no snapshot (main's frame has none either): resolved fully, and get is marked. The
// next 20 calls pass a concrete index: each takes a snapshot at entry (lazy: get is
// marked) that no resolution uses, since nothing in them is symbolic. At the 16th such
// snapshot (ResolveClient::RetireAfter) fewer than one in 16 was used (none): get stops
// taking them, for good. The last call, symbolic again, finds no snapshot and resolves
// fully: 16 snapshots in all, 1 function stopped, nothing pruned. Three ways at each
// symbolic call: 9 paths, as KLEE alone.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.valid
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 9
// RUN: %klee --pspa-resolve --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = 0, snapshots = 16, mismatches = 0
// CHECK: KLEE: done: pspa resolve: pruned accesses = 0 {{.*}} functions whose snapshots stopped (rarely used) = 1,
// CHECK: KLEE: done: completed paths = 9
// RUN: %python %checks queries %t.pspa "==" %t.base
#include "klee/klee.h"
#include <stdlib.h>

struct node {
  int val;
};

struct node *ta[3];

int get(struct node **t, unsigned i) { return t[i % 3]->val; }

int main(void) {
  for (int k = 0; k < 3; ++k) {
    ta[k] = malloc(sizeof *ta[k]);
    ta[k]->val = k;
  }
  unsigned i, j;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_make_symbolic(&j, sizeof j, "j");
  int s = get(ta, i);
  for (unsigned k = 0; k < 20; ++k)
    s += get(ta, k);
  return s + get(ta, j) > 1000;
}
