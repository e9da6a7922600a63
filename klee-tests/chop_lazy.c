// A skipped call is analysed only when a load may read what it wrote (issue: chopping that
// pays off). At -O0 nearly every load after a skip is of a local of the caller, and a
// local whose address never leaves its function (only loaded and stored through, by casts
// and GEPs too) can be written by its own frame alone: no call can write it, so such a
// load needs no analysis of the pending call.
//   main: `rc` and `parts` (a struct, read through a GEP) are such locals (`in`, whose
//   address goes to klee_make_symbolic, is not, and is not read after the skip). `shared`'s
//   address is stored in the global `seen`, so `drop(&t)` could reach it through `seen`
//   (its analysis says it does not: it writes `t` only) and the load of `shared` asks the
//   analysis once.
// Run 1 (keep = 0): after the skip of drop, main touches keep, rc and parts.a only: 0
// analyses. Each access is answered once, whatever the pending calls: the load of rc for
// `rc > 0` (once, before the fork); where it holds, parts.a, the store to rc, keep and the
// returned rc; on the other path keep and rc: 1 + 4 + 2 = 7 answered without analysis.
// Run 2 (keep = 1): main also loads `shared`: the one analysis of the run.
// Both: 0 recoveries (drop's write of t is never read), the skip dropped at exit.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.one %t.two
// RUN: %klee --skip-functions=drop --output-dir=%t.one %t.bc 0 2>&1 | %FileCheck %s --check-prefix=ONE
// ONE: KLEE: done: pspa calls analysed = 0
// ONE: KLEE: done: recovery states = 0
// ONE: loads of locals whose address never leaves their function (no analysis) = 7
// RUN: %klee --skip-functions=drop --output-dir=%t.two %t.bc 1 2>&1 | %FileCheck %s --check-prefix=TWO
// TWO: KLEE: done: pspa calls analysed = 1
// TWO: KLEE: done: recovery states = 0
#include "klee/klee.h"
#include <stdlib.h>

struct tree {
  int *cells;
  int n;
};
int *seen;

void drop(struct tree *t) {
  free(t->cells);
  t->cells = 0;
  t->n = 0;
}

int main(int argc, char **argv) {
  int keep = argc > 1 && argv[1][0] == '1';
  struct tree t;
  struct {
    int a, b;
  } parts;
  int in, rc, shared = 7;
  seen = &shared;
  t.n = 4;
  t.cells = malloc(sizeof(int) * 4);
  klee_make_symbolic(&in, sizeof in, "in"); // `in`'s address goes to a call: not private
  rc = in;
  parts.a = rc + 1;
  drop(&t);
  if (rc > 0)
    rc = parts.a;
  if (keep)
    rc += shared;
  return rc;
}
