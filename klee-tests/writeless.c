// Writeless functions (src/writeless.rs): a function that writes nothing outside its own
// frame in any state gets an answer made without reading the state: empty mod and free
// sets, counted as reuse.
//   probe(l): walks the list to its end, counting into a local: writeless.
//   sum(l):   walks and sums, its result used: writeless.
//   set(l, v): writes l->v: analysed.
// main: a list of 3; set; probe three times, a node added before each (each state new);
// sum. 5 calls: set analysed (1), probe and sum answered writeless (4).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.on %t.check %t.chop %t.base
// RUN: %klee --pspa-stats --pspa-analyze=probe,set,sum --output-dir=%t.on %t.bc 2>&1 | %FileCheck %s --check-prefix=ON
// ON: KLEE: done: pspa calls analysed = 5 (pspa)
// ON: KLEE: done: pspa analyses = 1, reused = 4 (reuse ratio 0.8000)
// ON: KLEE: done: pspa writeless calls = 4 (answered without reading: {{.*}}); full analyses of such functions = 0, finding a write = 0
// The CSV marks them (last column), and says nothing was read.
// RUN: grep -c '^probe,.*,0,0,0,1$' %t.on/pspa-calls.csv | grep -qx 3
// Under --pspa-check the shortcut is off: every call analysed and checked against what
// it touches, and the four full analyses of probe and sum find no write of theirs.
// RUN: %klee --pspa-check --pspa-stats --pspa-no-last-answers --pspa-analyze=probe,set,sum --output-dir=%t.check %t.bc 2>&1 | %FileCheck %s --check-prefix=CHECK
// CHECK: KLEE: done: pspa writeless calls = 0 ({{.*}}); full analyses of such functions = 4, finding a write = 0
// CHECK: KLEE: done: pspa check: calls checked = 5, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// Chopped, set and probe skipped: probe's answers join set's pending post-state (still
// pending when main reads l->v: one recovery, set's); probe is never recovered. As KLEE
// alone: no error (the abort is not reached), one path.
// RUN: %klee --skip-functions=set,probe --pspa-stats --output-dir=%t.chop %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP-NOT: KLEE: ERROR
// CHOP: KLEE: done: pspa writeless calls = 3
// CHOP: KLEE: done: recovery states = 1
// CHOP: KLEE: done: completed paths = 1
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-NOT: KLEE: ERROR
// BASE: KLEE: done: completed paths = 1
#include <stdlib.h>

struct node {
  struct node *next;
  int v;
};

static struct node *push(struct node *l, int v) {
  struct node *n = malloc(sizeof *n);
  n->next = l;
  n->v = v;
  return n;
}

__attribute__((noinline)) void probe(struct node *l) {
  int n = 0;
  for (struct node *p = l; p; p = p->next)
    n++;
  volatile int sink = n;
  (void)sink;
}

__attribute__((noinline)) int sum(struct node *l) {
  int s = 0;
  for (struct node *p = l; p; p = p->next)
    s += p->v;
  return s;
}

__attribute__((noinline)) void set(struct node *l, int v) { l->v = v; }

int main(void) {
  struct node *l = push(push(push(0, 1), 2), 3);
  set(l, 5);
  for (int i = 0; i < 3; i++) {
    l = push(l, 10 + i);
    probe(l);
  }
  if (l->next->next->next->v != 5)
    abort();
  return sum(l) == 5 + 2 + 1 + 10 + 11 + 12 ? 0 : 1;
}
