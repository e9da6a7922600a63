// Frees and skipped calls. release(&x) frees the int x.p points to; main skips it. Then
// c selects one of three continuations:
//  c == 0: main frees x.p again: a double free, which KLEE reports.
//          Reading x.p needs no recovery (release does not write x), so only the free
//          itself can bring release back: a pending call that may free (free is a write in
//          the models) the freed object is recovered first; its free unbinds the int, and
//          main's free, run again, finds nothing to free, as without chopping.
//  c == 1: main reads *x.p after release freed it: a use after free;
//          the load is in release's mod set (the free), so it recovers.
//  c == 2: main returns without touching the int: no recovery.
// Without chopping: 3 paths, 2 errors (lines below). Chopped, SPA and PSPA: one snapshot,
// a recovery on each of the two error paths, and the same errors at the same lines.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-DAG: KLEE: ERROR: {{.*}}chop_free.c:43: memory error: double free
// BASE-DAG: KLEE: ERROR: {{.*}}chop_free.c:45: memory error: use after free
// BASE: KLEE: done: completed paths = 1
// RUN: %klee --skip-functions=release --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=release --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP-DAG: KLEE: ERROR: {{.*}}chop_free.c:43: memory error: double free
// CHOP-DAG: KLEE: ERROR: {{.*}}chop_free.c:45: memory error: use after free
// CHOP: KLEE: done: recovery states = 2
// CHOP: KLEE: done: created snapshots = 1
// CHOP: KLEE: done: completed paths = 1
// RUN: %python %checks same-errors %t.base %t.pspa
// RUN: %python %checks same-errors %t.base %t.spa
#include "klee/klee.h"
#include <stdlib.h>

struct holder { int *p; };

void release(struct holder *h) { free(h->p); }

int main(void) {
  struct holder x;
  int c;
  klee_make_symbolic(&c, sizeof c, "c");
  x.p = malloc(sizeof(int));
  *x.p = 7;
  release(&x);
  if (c == 0) {
    free(x.p);
  } else if (c == 1) {
    return *x.p;
  }
  return 0;
}
