// KLEE's own objects under a call of the host's __ctype_b_loc and __errno_location (no
// libc: both are KLEE's externals, declared in the module). classify dereferences two
// pointers with a symbolic index: the table pointer loaded from __ctype_b_loc's cell,
// which points into KLEE's ctype table (an object of no site of the program), and t,
// whose set is `table` alone. The analysis makes the cell (its type holds a pointer)
// point to the model's storage, so the table pointer cannot rule KLEE's table out: its
// resolutions scan, and finding the table keeps the one path with no memory error (an
// empty set would have listed nothing: an out-of-bound error). t's resolutions are listed
// from the set, one per call (2), and the other pointers' KLEE objects (errno's cell for
// one) stay ruled out for t. Validation: 0 mismatches.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 1
// RUN: %klee --pspa-resolve --pspa-resolve-validate --pspa-resolve-snapshots=all --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: memory error
// CHECK: symbolic accesses = 4, {{.*}} mismatches = 0
// CHECK: listed from the set (at most 3 objects, no scan) = 2,
// CHECK: KLEE: done: completed paths = 1
#include "klee/klee.h"
#include <ctype.h>
#include <errno.h>

int table[4];

int classify(int *t, unsigned char c) {
  errno = 0;
  int k = isalpha(c) ? 1 : 0;
  return k + t[c & 3];
}

int main(void) {
  unsigned char c;
  klee_make_symbolic(&c, sizeof c, "c");
  return classify(table, c) + classify(table, c);
}
