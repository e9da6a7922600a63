// Last answers are kept by what the core is given of the arguments, not by their values
// (LastAnswers::argKey): an integer argument below the first page, and one of another width
// than a pointer, give the core nothing, so calls that differ only there are answered from
// one entry. A value that no object holds but one could (an address-sized integer) is a
// target if an object is ever allocated there: it stays part of the key, value and all. A
// pointer to another object is another key.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.noreuse
// RUN: %klee --pspa-check --pspa-stats --pspa-analyze=sum_n --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// Six calls of sum_n, nothing written or allocated between them:
// #1 sum_n(a, 1, 1): read, kept;
// #2 sum_n(a, 2, 5): n and k differ, the core is given the same (a's node, nothing,
//    nothing): answered;
// #3 sum_n(a, 3000, -1): answered;
// #4 sum_n(a, 123456789, 0): n is no object's address but at or above 4096, so an object
//    could come to hold it: another key, read and kept;
// #5 the same call again: answered (no object holds 123456789);
// #6 sum_n(b, 1, 1): another node: read.
// Before keys by targets, only #5 was answered (its values equal #4's).
// CHECK: KLEE: done: pspa calls analysed = 6 (pspa)
// CHECK: KLEE: done: pspa last answers: 3 calls answered without reading
// CHECK: KLEE: done: pspa check: calls checked = 6, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %klee --pspa-stats --pspa-no-reuse --pspa-analyze=sum_n --output-dir=%t.noreuse %t.bc 2>&1 | %FileCheck %s --check-prefix=NOREUSE
// NOREUSE: KLEE: done: pspa analyses = 6, reused = 0
// NOREUSE: KLEE: done: pspa last answers: 0 calls
#include <stdlib.h>

struct node {
  struct node *next;
  long v;
};

long sum_n(struct node *l, long n, int k) {
  long s = 0;
  for (; l; l = l->next)
    s += l->v;
  return s + (n & 1) + k;
}

struct node *make(struct node *next, long v) {
  struct node *n = malloc(sizeof *n);
  n->next = next;
  n->v = v;
  return n;
}

int main(void) {
  struct node *c = make(0, 3), *b = make(c, 2), *a = make(b, 1);
  long t = sum_n(a, 1, 1);
  t += sum_n(a, 2, 5);
  t += sum_n(a, 3000, -1);
  t += sum_n(a, 123456789, 0);
  t += sum_n(a, 123456789, 0);
  t += sum_n(b, 1, 1);
  return t == 8 + 11 + 5 + 7 + 7 + 7 ? 0 : 1;
}
