// A word a call read that was no address when its function's last analysis ran may be one
// later: an object allocated there since (cpp-shim/src/last_answers.h). bx->p dangles (e
// was freed); on the path where x == 0, peek reads bx and follows bx->p into freed memory
// (KLEE reports it); on the other, f is allocated first, at e's address (no quarantine),
// and peek reads f through the same bytes of bx. Explored in that order (DFS), the second
// call must not get the first's answer, which has no target for bx->p: it is analysed
// again, and the check finds its read of f inside the answer.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee
// RUN: %klee --kdalloc-quarantine=0 --search=dfs --pspa-check --pspa-stats --pspa-analyze=peek --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: ERROR: {{.*}}memory error
// CHECK: KLEE: done: pspa calls analysed = 2 (pspa)
// CHECK: KLEE: done: pspa last answers: 0 calls
// CHECK: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// The order: the first call met bx alone (bx->p had no target), the second bx and f, and
// its ref set has f.v besides bx's two fields.
// RUN: %FileCheck %s --check-prefix=CSV --input-file=%t.klee/pspa-calls.csv
// CSV: peek,{{[0-9]+}},pspa,1,0,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},1,{{[0-9]+}},0,1,
// CSV-NEXT: peek,{{[0-9]+}},pspa,1,0,{{[0-9]+}},3,{{[0-9]+}},{{[0-9]+}},2,{{[0-9]+}},0,1,
#include "klee/klee.h"
#include <stdlib.h>

struct node {
  struct node *next;
  int v;
};
struct box {
  struct node *p;
  int n;
};

int peek(struct box *b) { return b->n ? b->p->v : 0; }

int main(void) {
  struct box *bx = malloc(sizeof *bx);
  struct node *e = malloc(sizeof *e);
  e->next = 0;
  e->v = 5;
  bx->p = e;
  bx->n = 1;
  free(e);
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  if (x) {
    struct node *f = malloc(sizeof *f);
    f->next = 0;
    f->v = 9;
    return peek(bx);
  }
  return peek(bx);
}
