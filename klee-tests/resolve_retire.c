// Lazy snapshots stop for a function whose calls rarely need them, or cost more than they
// save (issue: resolution that saves queries). get(t, i) reads t[i % 3]->val. Its first
// call, with a symbolic index, has no snapshot (main's frame has none either): resolved fully, and get is marked. The
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
// CHECK: KLEE: done: pspa resolve: pruned accesses = 0 {{.*}} functions whose snapshots stopped (rarely used) = 1, (costlier than they save) = 0, snapshots given up over --pspa-resolve-max-work = 0,
// CHECK: KLEE: done: completed paths = 9
// RUN: %python %checks queries %t.pspa "==" %t.base
//
// The cost guard (--pspa-resolve-max-work): a snapshot is worth the queries its
// resolutions save, so one that costs more is given up, and a function whose snapshots cost
// more than they save stops taking them.
//
// A budget of one points-to element: the second call's snapshot, get's first solve, goes
// over it and is given up (not a failure of the analysis); get stops at once. No snapshot
// is ever kept, so nothing is pruned: the same queries as KLEE alone.
// RUN: rm -rf %t.tiny %t.cal %t.cost
// RUN: %klee --pspa-resolve --pspa-resolve-max-work=1 --pspa-resolve-validate --output-dir=%t.tiny %t.bc 2>&1 | %FileCheck %s --check-prefix=TINY
// TINY: KLEE: done: pspa failures = 0; given up over a client's budget (not failures) = 1
// TINY: KLEE: done: pspa resolve: {{.*}} snapshots = 0, mismatches = 0
// TINY: pruned accesses = 0 {{.*}} (rarely used) = 0, (costlier than they save) = 1, snapshots given up over --pspa-resolve-max-work = 1,
// TINY: KLEE: done: completed paths = 9
// RUN: %python %checks queries %t.tiny "==" %t.base
//
// Charged work: with reuse off every snapshot of get solves, each with the same work w
// (the same state; read from a calibration run's pspa-calls.csv). With a budget of 1.5 w,
// no snapshot goes over it, but the second brings get's work to 2 w, past the budget plus
// what its snapshots saved: none, since no resolution runs inside the concrete calls.
// So get stops after 2 snapshots instead of 16, for its cost.
// RUN: %klee --pspa-resolve --pspa-no-reuse --output-dir=%t.cal %t.bc > /dev/null 2>&1
// RUN: %klee --pspa-resolve --pspa-no-reuse --pspa-resolve-max-work=$(%python %checks work %t.cal/pspa-calls.csv get 1.5) --output-dir=%t.cost %t.bc 2>&1 | %FileCheck %s --check-prefix=COST
// COST: KLEE: done: pspa failures = 0
// COST: KLEE: done: pspa resolve: {{.*}} snapshots = 2, mismatches = 0
// COST: (rarely used) = 0, (costlier than they save) = 1, snapshots given up over --pspa-resolve-max-work = 0,
// COST: KLEE: done: completed paths = 9
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
