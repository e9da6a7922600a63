// A call whose state still holds what one of its function's recent analyses read gets that
// answer without reading the state (cpp-shim/src/last_answers.h). sum(a) reads the three
// nodes of the list a (their `next` and `v`); main's locals and the unrelated object
// `other` are never read by it. What counts is what the analysis was given: the objects
// met and the pointers in those read, not their data. --pspa-check checks every access of
// every call against the answer the call got, reused or not.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.off %t.noreuse
// RUN: %klee --pspa-check --pspa-stats --pspa-analyze=sum --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// Six calls: #1 reads; #2 nothing it read changed (a write to `other` and to main's
// local do not count): answered; #3 sum(other), another argument: read (a's answer would
// not cover `other`, which the check would report), and a's entry stays beside other's;
// #4 b->v changed, b's write stamp moved, but its pointers did not: answered from a's
// entry; #5 answered; #6 c->next now points to a fourth node: read again, and its answer
// covers the new node (the check). Nothing is allocated or freed between #1 and #5, so
// the checks of #2, #4 and #5 find a's entry in a state with its bound objects (the
// patch's fingerprint): no address lookup for the objects met, no unresolved word to look
// at, only the read objects' stamps (and b's words at #4); #6 comes after an allocation
// and takes the long way (which finds c's new pointer).
// CHECK: KLEE: done: pspa calls analysed = 6 (pspa)
// CHECK: KLEE: done: pspa last answers: 3 calls answered without reading {{.*}}entry's bound objects = 3; objects written since whose pointers were the same = 1; calls not kept, {{.*}} = 0)
// CHECK: KLEE: done: pspa check: calls checked = 6, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// Off, every call reads the state (two are isomorphism hits instead).
// RUN: %klee --pspa-check --pspa-stats --pspa-no-last-answers --pspa-analyze=sum --output-dir=%t.off %t.bc 2>&1 | %FileCheck %s --check-prefix=OFF
// OFF: KLEE: done: pspa last answers: 0 calls
// OFF: KLEE: done: pspa check: calls checked = 6, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %klee --pspa-stats --pspa-no-reuse --pspa-analyze=sum --output-dir=%t.noreuse %t.bc 2>&1 | %FileCheck %s --check-prefix=NOREUSE
// NOREUSE: KLEE: done: pspa analyses = 6, reused = 0
// NOREUSE: KLEE: done: pspa last answers: 0 calls
#include <stdlib.h>

struct node {
  struct node *next;
  int v;
};

int sum(struct node *l) {
  int s = 0;
  for (; l; l = l->next)
    s += l->v;
  return s;
}

struct node *make(struct node *next, int v) {
  struct node *n = malloc(sizeof *n);
  n->next = next;
  n->v = v;
  return n;
}

int main(void) {
  struct node *c = make(0, 3), *b = make(c, 2), *a = make(b, 1);
  struct node *other = make(0, 0);
  int t = sum(a);
  other->v = t;
  t += sum(a);
  t += sum(other);
  b->v = 7;
  t += sum(a);
  t += sum(a);
  c->next = make(0, 4);
  t += sum(a);
  return t == 6 + 6 + 6 + 11 + 11 + 15 ? 0 : 1;
}
