// Resolution from the points-to set alone (issue: resolution that saves queries). Where the
// pointer's set names at most AddressSpace::FewKept (3) live objects of the whole address
// space, and the answer cannot tell about at most FewUnknown others, the patch lists them
// without asking the solver where the address lies; where it names one, resolveOne takes it
// without KLEE's example query.
//
// ta's and tb's three nodes each come from mk(), one allocation site, allocated in turn:
// they lie among each other in memory with either allocator. lookup(t, i) loads t[i % 3]
// (address &t[i % 3]: always inside ta, KLEE's fast path: an example, then must-be-in) and
// reads n->val, where n may be any of ta's three nodes (KLEE scans from an example node,
// asking about tb's nodes between them too, then forks three ways).
// - With PSPA, from lookup's snapshot, &t[i % 3]'s set names ta alone, so resolveOne takes ta
//   with no example query (1 query: the caller's must-be-in); n's set names ta's three
//   nodes (unique sites), so resolve lists them without a query and the three forks ask
//   three. lookup's first call has no snapshot yet (lazy; main has none): resolved fully.
// - With SPA, ta's set is {ta} too (1 query), but n's set is mk's one site, all six nodes: the
//   scan runs (skipping only other sites' objects).
// Three lookups with fresh indices, three ways each: 27 paths in every configuration.
// Targets: PSPA at most half of KLEE alone's resolution queries with both allocators, no
// more than SPA; on the same states pruning never asks more (compare); no skipped object
// was feasible (validate).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.hbase %t.pspa %t.hpspa %t.spa %t.hspa %t.cmp %t.hcmp %t.valid %t.hvalid
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// RUN: %klee --kdalloc=false --output-dir=%t.hbase %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 27
// RUN: %klee --pspa-resolve --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --pspa-resolve --kdalloc=false --output-dir=%t.hpspa %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = {{[0-9]+}}, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// CHECK: resolved fully (no snapshot yet) = {{[1-9][0-9]*}}, under a call that ends the process = 0, through data made symbolic since the snapshot = 0, functions whose snapshots stopped (rarely used) = 0, (costlier than they save) = 0, snapshots given up over --pspa-resolve-max-work = 0, listed from the set (at most 3 objects, no scan) = {{[1-9][0-9]*}}
// CHECK: KLEE: done: completed paths = 27
// RUN: %klee --pspa-resolve --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// RUN: %klee --pspa-resolve --pspa-mode=spa --kdalloc=false --output-dir=%t.hspa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA: KLEE: done: completed paths = 27
// RUN: %python %checks queries %t.pspa "<=half" %t.base
// RUN: %python %checks queries %t.hpspa "<=half" %t.hbase
// RUN: %python %checks queries %t.pspa "<=" %t.spa "<=" %t.base
// RUN: %python %checks queries %t.hpspa "<=" %t.hspa "<=" %t.hbase
// RUN: %klee --pspa-resolve --pspa-resolve-compare --output-dir=%t.cmp %t.bc 2>&1 | %FileCheck %s --check-prefix=CMP
// RUN: %klee --pspa-resolve --pspa-resolve-compare --kdalloc=false --output-dir=%t.hcmp %t.bc 2>&1 | %FileCheck %s --check-prefix=CMP
// CMP: KLEE: done: pspa resolve compare: resolutions = {{[1-9][0-9]*}}, queries on the same states pruned = {{[0-9]+}}, unpruned = {{[0-9]+}}, resolutions where pruning asked more = 0
// CMP: KLEE: done: completed paths = 27
// RUN: %klee --pspa-resolve --pspa-resolve-validate --output-dir=%t.valid %t.bc 2>&1 | %FileCheck %s --check-prefix=VALID
// RUN: %klee --pspa-resolve --pspa-resolve-validate --kdalloc=false --output-dir=%t.hvalid %t.bc 2>&1 | %FileCheck %s --check-prefix=VALID
// VALID: mismatches = 0
// VALID: validation queries = {{[1-9][0-9]*}}
// VALID: KLEE: done: completed paths = 27
#include "klee/klee.h"
#include <stdlib.h>

struct node {
  int key;
  int val;
};

struct node *ta[3], *tb[3];

struct node *mk(int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->val = 2 * k;
  return n;
}

int lookup(struct node **t, unsigned i) {
  struct node *n = t[i % 3];
  return n->val;
}

int main(void) {
  for (int k = 0; k < 3; ++k) {
    ta[k] = mk(k);
    tb[k] = mk(10 + k);
  }
  unsigned i, j, l;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_make_symbolic(&j, sizeof j, "j");
  klee_make_symbolic(&l, sizeof l, "l");
  return lookup(ta, i) + lookup(ta, j) + lookup(ta, l) > 100;
}
