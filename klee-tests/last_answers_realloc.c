// A met object freed and another allocated at its address (cpp-shim/src/last_answers.h):
// peek(bx) loads bx->p and the int p->v, so its analysis reads bx and meets e without
// reading it. e is then freed and f allocated at the same address (no quarantine): bx's
// bytes are the same, but the object there is another one. The second call must be read
// again: the first answer has e, not f, and the check would find the read of f->v outside
// it.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee
// RUN: %klee --kdalloc-quarantine=0 --pspa-check --pspa-stats --pspa-analyze=peek --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 2 (pspa)
// CHECK: KLEE: done: pspa last answers: 0 calls
// CHECK: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include <stdlib.h>

struct node {
  struct node *next;
  int v;
};
struct box {
  struct node *p;
};

int peek(struct box *b) { return b->p->v; }

int main(void) {
  struct box *bx = malloc(sizeof *bx);
  struct node *e = malloc(sizeof *e);
  e->next = 0;
  e->v = 5;
  bx->p = e;
  int t = peek(bx);
  free(e);
  struct node *f = malloc(sizeof *f);
  f->next = 0;
  f->v = 9;
  // f took e's address: bx->p is f now, with the same bytes.
  if ((void *)f != (void *)bx->p)
    return 2;
  return t + peek(bx);
}
