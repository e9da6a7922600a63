// Variadic functions under --pspa-check (issue: right answers). KLEE passes a call's
// variadic arguments in one object it allocates at the call (its allocSite is the call
// instruction); va_start makes the va_list point into it, and va_arg reads it. The
// analysis models that object as the callee's `...` object (stack:F:...), a local of the
// callee: sum's reads of its arguments are its own locals' (not effects), and the reads of
// `*p` through a pointer passed variadically are in its ref set. Before, the object had no
// known site: its reads counted as outside the ref set (6 here) in PSPA mode.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.spa
// RUN: %klee --pspa-analyze-all --pspa-check --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --pspa-analyze-all --pspa-check --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: ASSERTION FAIL
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// CHECK: KLEE: done: completed paths = 1
#include "klee/klee.h"
#include <stdarg.h>

int sum(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int s = 0;
  for (int i = 0; i < n; i++)
    s += *va_arg(ap, int *);
  va_end(ap);
  return s;
}

int total(int *a, int *b, int *c) { return sum(3, a, b, c); }

int main(void) {
  int a = 1, b = 2, c = 3;
  klee_assert(total(&a, &b, &c) == 6);
  return 0;
}
