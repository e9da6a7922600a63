// A skipped call of a function that writes only a static and may end the process:
// tick_or_exit(x) does hits++, then exits when x < 0. Its answer, made without the state,
// names exit among what it may run, so the chopped path recovers it before going on (1
// recovery, both x's paths share it before forking inside), and the x < 0 path ends
// there as under KLEE alone: the assertion after the call never fails, 2 paths complete.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.chop %t.all %t.base
// RUN: %klee --libc=uclibc --skip-functions=tick_or_exit --pspa-stats --output-dir=%t.chop %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: ASSERTION FAIL
// CHECK: KLEE: done: pspa writeless calls = 1 ({{.*}}; of them 1 but static objects, errno)
// CHECK: KLEE: done: recovery states = 1
// CHECK: KLEE: done: completed paths = 2
// CHECK: KLEE: done: partially completed paths = 0
// With the other clients on (the shortcut then off): the same paths, 0 outside, 0
// mismatches, and the full analysis writes only `hits`.
// RUN: %klee --libc=uclibc --skip-functions=tick_or_exit --pspa-check --pspa-resolve --pspa-resolve-validate --pspa-stats --output-dir=%t.all %t.bc 2>&1 | %FileCheck %s --check-prefix=ALL
// ALL-NOT: ASSERTION FAIL
// ALL: KLEE: done: pspa writeless calls = 0 ({{.*}}); full analyses of such functions = 1, finding a write = 0
// ALL: KLEE: done: pspa check: {{.*}}outside mod/ref = 0
// ALL: KLEE: done: pspa resolve: {{.*}}mismatches = 0
// ALL: KLEE: done: recovery states = 1
// ALL: KLEE: done: completed paths = 2
// RUN: %klee --libc=uclibc --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-NOT: ASSERTION FAIL
// BASE: KLEE: done: completed paths = 2
#include "klee/klee.h"
#include <assert.h>
#include <stdlib.h>

int hits;

__attribute__((noinline)) void tick_or_exit(int x) {
  hits++;
  if (x < 0)
    exit(3);
}

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  tick_or_exit(x);
  assert(x >= 0);
  return 0;
}
