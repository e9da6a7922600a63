// --pspa-check: every load and store inside an analysed call, on every path, must be in
// the call's ref or mod set. The other tests run with it and expect 0 outside; this one
// shows that the check does see writes: with the mod sets taken as empty (a hidden test
// option), table_insert's writes are reported, with the function and the instruction.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.drop %t.pt
// RUN: %klee --pspa-check --pspa-analyze=table_insert --libc=uclibc --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
//
// table_insert writes the new element's fields, its buffer (strcpy's loop) and t's bucket.
// RUN: %klee --pspa-check --pspa-check-drop-mod --pspa-analyze=table_insert --libc=uclibc --output-dir=%t.drop %t.bc 2>&1 | %FileCheck %s --check-prefix=DROP
// DROP: KLEE: WARNING: pspa check: a call of table_insert writes object {{[0-9]+}} {{.*}} outside its mod set, at {{.*}}
// DROP: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = {{[1-9][0-9]*}}
//
// Answers keep the points-to sets only when asked (--pspa-keep-points-to); --pspa-stats
// gives the answers' sizes.
// RUN: %klee --pspa-keep-points-to --pspa-stats --pspa-analyze=table_insert --libc=uclibc --output-dir=%t.pt %t.bc 2>&1 | %FileCheck %s --check-prefix=PT
// PT: KLEE: done: pspa answers: 2, heap bytes mean = {{[1-9][0-9]*}}, max = {{[1-9][0-9]*}}
#include "klee/klee.h"

#define N 4
#include "../examples/fig1-table.h"

int main(void) {
  table_t *t = table_alloc(N);
  // Two calls, one path each: nothing symbolic decides a branch.
  table_insert(t, 1, "a");
  table_insert(t, 2, "b");
  return table_lookup(t, 1) == 0;
}
