// The projection's roots (src/reach.rs): a callee that names no global projects its
// argument's object alone; one that reaches a global only through a function pointer
// stored in a global table projects that global and writes it. Both give the sets of the
// reference projection from every global (--pspa-all-globals).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.snaps %t.all %t.snaps-all
// RUN: %klee --pspa-check --pspa-analyze=count_x,dispatch --pspa-dump-snapshots=%t.snaps --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 2 (pspa)
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
//
// count_x(buf) names no global: its projection is buf's object alone (its symbolic bytes
// are data, not pointers).
// RUN: %python %checks projected %t.klee/pspa-calls.csv count_x 1
// dispatch() names the table only; table[0] is bump, which writes counter.
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv dispatch mod 39 global:counter.0 --not global:unrelated.0
// RUN: %klee --pspa-check --pspa-analyze=count_x,dispatch --pspa-all-globals --pspa-dump-snapshots=%t.snaps-all --output-dir=%t.all %t.bc 2>&1 | %FileCheck %s
// RUN: %python %checks same %t.snaps %t.snaps-all
#include "klee/klee.h"

int counter, unrelated;

void bump(void) { counter++; }
void (*table[1])(void) = {bump};

int count_x(const char *buf) {
  int n = 0;
  for (int i = 0; i < 8; i++)
    n += buf[i] == 'x';
  return n;
}

void dispatch(void) { table[0](); }

int main(void) {
  char buf[8];
  klee_make_symbolic(buf, sizeof buf, "buf");
  unrelated = count_x(buf) > 2;
  dispatch();
  return counter + unrelated;
}
