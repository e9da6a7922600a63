// A write into an object a skipped call may free recovers the call first (its may-free
// set), so the use after free KLEE alone reports at the write is reported at the same line.
// release frees *h->p and sets `released`; main writes *x.p (the object release's
// may-free set holds: h->p is x.p), which recovers release before the write: the path
// then writes a freed object, a use after free at line 34, as KLEE alone finds.
// keep writes `kept` and frees nothing: main's writes into x.p do not recover it (its
// snapshot stays unrecovered; the counter of recoveries before such writes is 1, release's).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: ERROR: {{.*}}chop_free_write.c:34: memory error: use after free
// RUN: %klee --skip-functions=release,keep --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=release,keep --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP-NOT: the path wrote an object that the skipped
// CHOP: KLEE: ERROR: {{.*}}chop_free_write.c:34: memory error: use after free
// CHOP: KLEE: done: recovery states = 1
// CHOP: KLEE: done: created snapshots = 2
// CHOP: KLEE: done: pspa chop: {{.*}}recovered before a write into an object it may free = 1, writes after a skipped free = 0,
// RUN: %python %checks same-errors %t.base %t.pspa
// RUN: %python %checks same-errors %t.base %t.spa
#include <stdlib.h>

struct holder { int *p; };
int released, kept;

void keep(int v) { kept = v; }
void release(struct holder *h) { free(h->p); released = 1; }

int main(void) {
  struct holder x;
  x.p = malloc(sizeof(int));
  keep(3);
  release(&x);
  *x.p = 9;
  return released + kept;
}
