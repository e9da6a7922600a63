// --pspa-resolve on a memcpy through a symbolic pointer. KLEE runs memcpy as a function of
// its runtime, byte by byte: the store that resolves p is memcpy's, whose pointer the
// analysis has no set for (it replaces memcpy's body by a model). The plugin answers with
// the set of the call's pointer arguments (p and &tmp) in copy_a's frame instead.
// As in resolve.c: p = as[i % 8] is one of list A's eight nodes; list B's 64 nodes come
// from the same allocation function, eight after each A node, so KLEE's address-ordered
// scan from one A node to the others meets B's nodes. memcpy's frame had a symbolic
// pointer argument, copy_a's did not: copy_a's snapshot answers. Its first call resolves
// fully and marks it (lazy snapshots: no call out from it has a snapshot, main's frame
// has none); in the second call's snapshot A's and B's nodes are
// distinct unique sites, and p's set holds A's only: B's nodes are skipped (PSPA makes
// fewer queries than KLEE alone). SPA has one site for both lists: it skips only other
// sites' objects, none of them in the range the scan covers (equality is allowed).
// The first byte's store forks eight ways, the other bytes' stores then have one target:
// 8 x 8 = 64 paths in every configuration.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.spa %t.pspa %t.valid
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 64
// BASE: KLEE: done: generated tests = 64
// RUN: %klee --pspa-resolve --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = 0, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// SPA: KLEE: done: completed paths = 64
// RUN: %klee --pspa-resolve --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = {{[1-9][0-9]*}}, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// PSPA: KLEE: done: pspa resolve: pruned accesses = {{[1-9][0-9]*}} (through a modelled call's arguments = {{[1-9][0-9]*}}, from an outer call's snapshot = 0), resolved fully (no snapshot yet) = {{[1-9][0-9]*}}
// PSPA: KLEE: done: completed paths = 64
// PSPA: KLEE: done: generated tests = 64
// RUN: %python %checks queries %t.pspa "<" %t.base
// RUN: %python %checks queries %t.pspa "<=" %t.spa "<=" %t.base
// RUN: %klee --pspa-resolve --pspa-resolve-validate --output-dir=%t.valid %t.bc 2>&1 | %FileCheck %s --check-prefix=VALID
// VALID: KLEE: done: pspa resolve: symbolic accesses = {{[1-9][0-9]*}}, candidates skipped = {{[1-9][0-9]*}}, snapshots = {{[1-9][0-9]*}}, mismatches = 0
// VALID: KLEE: done: completed paths = 64
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

int copy_a(unsigned i) {
  struct node *p = as[i % N];
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
  unsigned i[2];
  klee_make_symbolic(i, sizeof i, "i");
  int r = 0;
  for (unsigned round = 0; round < 2; round++)
    r += copy_a(i[round]);
  return r;
}
