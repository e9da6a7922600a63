// Last answers compared by KLEE's write stamps and, for an object written since, by the
// targets of its words (cpp-shim/src/last_answers.h). peek(b) reads the box b (and what
// b->p points to). The box's `n` is data: a word the analysis is given as an integer when
// no object holds its value.
//   #1 reads the box: p null, n = 5.
//   #2 after `bx->n = addr` (the address e had; e is freed, so no object holds it): the
//      box's stamp moved, its words have the same targets (none): answered without reading;
//      addr joins the words that must stay no object's.
//   #3 f is allocated where e was (no quarantine) and the box is not written: its stamp is
//      the one #2 saw, but its word n now holds f's address, a target the core would be
//      given: read again (the answer of #2 would not name f).
//   #4 nothing changed since #3: answered.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee
// RUN: %klee --kdalloc-quarantine=0 --pspa-check --pspa-stats --pspa-analyze=peek --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 4 (pspa)
// CHECK: KLEE: done: pspa last answers: 2 calls answered without reading {{.*}}written since whose pointers were the same = 1; calls not kept, {{.*}} = 0)
// CHECK: KLEE: done: pspa check: calls checked = 4, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// The third call met f through the box's word n (two objects projected: the box and f),
// the first only the box; the second and fourth read nothing.
// RUN: %FileCheck %s --check-prefix=CSV --input-file=%t.klee/pspa-calls.csv
// CSV: peek,{{[0-9]+}},pspa,1,0,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},1,
// CSV-NEXT: peek,{{[0-9]+}},pspa,1,1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},0,
// CSV-NEXT: peek,{{[0-9]+}},pspa,1,{{[01]}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},2,
// CSV-NEXT: peek,{{[0-9]+}},pspa,1,1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},0,
#include <stdint.h>
#include <stdlib.h>

struct node {
  struct node *next;
  int v;
};
struct box {
  struct node *p;
  uintptr_t n;
};

int peek(struct box *b) { return b->p ? b->p->v : 0; }

int main(void) {
  struct box *bx = malloc(sizeof *bx);
  bx->p = 0;
  bx->n = 5;
  struct node *e = malloc(sizeof *e);
  uintptr_t addr = (uintptr_t)e;
  free(e);
  int t = peek(bx);
  bx->n = addr;
  t += peek(bx);
  struct node *f = malloc(sizeof *f);
  f->next = 0;
  f->v = 9;
  t += peek(bx);
  t += peek(bx);
  // f reuses e's address: what the third line of the CSV shows (f projected).
  return t == 0 ? 0 : 1;
}
