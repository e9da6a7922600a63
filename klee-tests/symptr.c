// A symbolic pointer stored in a field: the state says it may point to a or b (not c),
// at an offset the solver cannot fix, so those objects are field-insensitive.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.snaps
// RUN: %klee --pspa-check --pspa-analyze=write_through --pspa-dump-snapshots=%t.snaps --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 1 (pspa)
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv write_through mod 35 global:a.* global:b.* --not global:c.0 global:c.*
// RUN: %python %checks replay %t.snaps %pspa
//
// With no time for reading symbolic addresses (--pspa-max-read-ms=0), the pointer in the
// field is not resolved: an unknown target, so the call may touch anything (and --pspa-check
// accepts every access). The run ends as before; nothing fails.
// RUN: rm -rf %t.noread
// RUN: %klee --pspa-check --pspa-stats --pspa-max-read-ms=0 --pspa-analyze=write_through --output-dir=%t.noread %t.bc 2>&1 | %FileCheck %s --check-prefix=NOREAD
// NOREAD: KLEE: done: pspa failures = 0
// NOREAD: KLEE: done: pspa slots: {{.*}}, unknown (over the read budget) = 1
// NOREAD: KLEE: done: pspa check: calls checked = 1, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include "klee/klee.h"

int a, b, c;
struct holder { int *p; int *q; };

void write_through(struct holder *h) { *h->p = 1; }

int main(void) {
  int *choices[3] = {&a, &b, &c};
  unsigned i;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i < 2);
  struct holder h;
  h.p = choices[i];
  h.q = &c;
  write_through(&h);
  return a + b + c;
}
