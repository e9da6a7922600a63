// --pspa-resolve: the symbolic pointer p = as[i % 8] points into one of the eight nodes of
// list A; the 64 nodes of list B come from the same allocation function (mk), eight
// allocated after each A node, so that KLEE's address-ordered scan from one A node to the
// others meets B's nodes on the way (KLEE's allocator spreads consecutive allocations over
// its regions: the B nodes allocated between two A nodes lie around them). At set(p, 7) the frame of `set` had a
// symbolic pointer argument, so the snapshot is write_a's (the nearest frame without one:
// the automatic analysis distance). The first call of write_a resolves fully and marks
// it (lazy snapshots); the second takes a snapshot at entry, in which A's and B's nodes
// are distinct unique sites: PSPA skips B's nodes and every other object. SPA knows one
// site, heap:mk:LINE, for A's and B's nodes: it could skip only the objects of other
// sites, and the scan meets none of those here (0 skipped), so it makes as many queries
// as KLEE alone (the check allows equality).
// Each call's store through p forks eight ways (one state per A node; each call has its
// own symbolic index): 8 x 8 = 64 paths in every configuration. The memcpy into p then has
// one target (resolve_memcpy.c prunes a memcpy's resolution).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.spa %t.pspa %t.valid %t.all %t.d0 %t.d0q
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 64
// BASE: KLEE: done: generated tests = 64
// RUN: %klee --pspa-resolve --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = 0, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// SPA: KLEE: done: completed paths = 64
// RUN: %klee --pspa-resolve --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = {{[1-9][0-9]*}}, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// PSPA: KLEE: done: completed paths = 64
// PSPA: KLEE: done: generated tests = 64
// RUN: %python %checks queries %t.pspa "<" %t.base
// RUN: %python %checks queries %t.pspa "<=" %t.spa "<=" %t.base
//
// Validation: every skipped object is asked about; none is feasible. With snapshots of
// every call too.
// RUN: %klee --pspa-resolve --pspa-resolve-validate --output-dir=%t.valid %t.bc 2>&1 | %FileCheck %s --check-prefix=VALID
// VALID: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = {{[1-9][0-9]*}}, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// VALID: KLEE: done: completed paths = 64
// RUN: %klee --pspa-resolve --pspa-resolve-snapshots=all --pspa-resolve-validate --output-dir=%t.all %t.bc 2>&1 | %FileCheck %s --check-prefix=VALID
//
// A fixed distance of 0: the snapshot of set's own call, whose argument p the plugin reads
// as the eight A nodes (KLEE's resolution of the symbolic value): it prunes B's nodes too.
// That resolution scans the 72 nodes with KLEE's solver, longer than the default
// --pspa-max-resolve-ms / --pspa-max-read-ms allow (125 / 250 ms: its first tries time out
// twice and the address is given up as an unknown target, which prunes nothing): given
// 1000 / 2000 ms, the first times out cold and the later ones resolve.
// RUN: %klee --pspa-resolve --pspa-resolve-distance=0 --pspa-max-resolve-ms=1000 --pspa-max-read-ms=2000 --pspa-resolve-validate --output-dir=%t.d0 %t.bc 2>&1 | %FileCheck %s --check-prefix=VALID
// RUN: %klee --pspa-resolve --pspa-resolve-distance=0 --pspa-max-resolve-ms=1000 --pspa-max-read-ms=2000 --output-dir=%t.d0q %t.bc > /dev/null 2>&1
// RUN: %python %checks queries %t.d0q "<" %t.base
#include "klee/klee.h"
#include <stdlib.h>
#include <string.h>

struct node { int val; struct node *next; };

struct node *mk(int v) {
  struct node *n = malloc(sizeof *n);
  n->val = v;
  n->next = 0;
  return n;
}

#define N 8
struct node *as[N], *bs[N * N];

void set(struct node *p, int v) { p->val = v; }

int write_a(unsigned i) {
  struct node *p = as[i % N];
  set(p, 7);
  struct node tmp = {8, 0};
  memcpy(p, &tmp, sizeof tmp);
  return p->val;
}

int main(void) {
  for (int k = 0; k < N; k++) {
    as[k] = mk(k);
    for (int j = 0; j < N; j++)
      bs[N * k + j] = mk(100 + j);
  }
  // A fresh symbolic index per call: each call's store forks four ways.
  unsigned i[2];
  klee_make_symbolic(i, sizeof i, "i");
  int r = 0;
  for (unsigned round = 0; round < 2; round++)
    r += write_a(i[round]);
  return r;
}
