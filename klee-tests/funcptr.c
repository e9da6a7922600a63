// Function pointers in fields resolve through the state: each call of run() calls one
// callback, so its mod-set has that callback's counter only.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.snaps
// RUN: %klee --pspa-check --pspa-analyze=run --pspa-dump-snapshots=%t.snaps --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 2 (pspa)
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv run mod 25 global:hits_a.0 --not global:hits_b.0
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv run mod 26 global:hits_b.0 --not global:hits_a.0
// RUN: %python %checks replay %t.snaps %pspa
#include "klee/klee.h"

int hits_a, hits_b;
struct ops { void (*fn)(void); int pad; };

void fa(void) { hits_a++; }
void fb(void) { hits_b++; }
void run(struct ops *o) { o->fn(); }

int main(void) {
  struct ops x = {fa, 0}, y = {fb, 0};
  int s;
  klee_make_symbolic(&s, sizeof s, "s");
  run(&x);
  run(&y);
  return s;
}
