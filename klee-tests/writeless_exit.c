// A skipped writeless call that may end the process: check(x) writes nothing, but exits
// when x < 0. Its writeless answer still names exit among what it may run, so the chopped
// path recovers it before going on (1 recovery), and the x < 0 path ends there as under
// KLEE alone: the assertion after the call never fails, 2 paths complete.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.chop %t.check
// RUN: %klee --skip-functions=check --pspa-stats --output-dir=%t.chop %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: ASSERTION FAIL
// CHECK: KLEE: done: pspa writeless calls = 1
// CHECK: KLEE: done: recovery states = 1
// CHECK: KLEE: done: completed paths = 2
// CHECK: KLEE: done: partially completed paths = 0
// With the other clients on (the writeless shortcut then off): the same paths, 0 outside.
// RUN: %klee --skip-functions=check --pspa-check --pspa-resolve --pspa-resolve-validate --pspa-stats --output-dir=%t.check %t.bc 2>&1 | %FileCheck %s --check-prefix=ALL
// ALL-NOT: ASSERTION FAIL
// ALL: KLEE: done: pspa writeless calls = 0 ({{.*}}); full analyses of such functions = 1, finding a write = 0
// ALL: KLEE: done: pspa check: {{.*}}outside mod/ref = 0
// ALL: KLEE: done: pspa resolve: {{.*}}mismatches = 0
// ALL: KLEE: done: recovery states = 1
// ALL: KLEE: done: completed paths = 2
#include "klee/klee.h"
#include <assert.h>
#include <stdlib.h>

__attribute__((noinline)) void check(int x) {
  if (x < 0)
    exit(3);
}

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  check(x);
  assert(x >= 0);
  return 0;
}
