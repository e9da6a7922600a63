// Skipped functions that may end the path or constrain its input (issue: right answers).
// A path that ran on past such a call would report what cannot happen: after
// `check_input(x)` (which exits when x > 10) main asserts x <= 10, which KLEE alone never
// fails; after `narrow(x)` (klee_assume(x < 5)) main asserts x < 5; `die()` is _Noreturn
// (it aborts), so the code after its call is unreachable, and KLEE alone reports the
// abort. `quiet()` calls klee_silent_exit through a function pointer, which only the
// whole-program analysis resolves. `helper()` ends nothing: it is skipped.
// The rule: a function that may end the path or constrain its input, per the call graph,
// is not skipped; one warning each names the way there. So every configuration reports
// exactly what KLEE alone does: the abort, no assertion failure, no unreachable.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-NOT: ASSERTION FAIL
// BASE: abort failure
// BASE-NOT: ASSERTION FAIL
// BASE: KLEE: done: generated tests = [[TESTS:[0-9]+]]
// RUN: %klee --skip-functions=check_input,narrow,die,quiet,helper --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --skip-functions=check_input,narrow,die,quiet,helper --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: WARNING: pspa chop: --skip-functions: check_input is not skipped: it may end the path or constrain its input (check_input -> exit)
// CHECK: KLEE: WARNING: pspa chop: --skip-functions: narrow is not skipped: it may end the path or constrain its input (narrow -> klee_assume)
// CHECK: KLEE: WARNING: pspa chop: --skip-functions: die is not skipped: it may end the path or constrain its input (die)
// CHECK: KLEE: WARNING: pspa chop: --skip-functions: quiet is not skipped: it may end the path or constrain its input (quiet -> bye -> klee_silent_exit)
// CHECK-NOT: ASSERTION FAIL
// CHECK-NOT: unreachable
// CHECK: abort failure
// CHECK-NOT: ASSERTION FAIL
// CHECK: KLEE: done: created snapshots = {{[1-9][0-9]*}}
// CHECK: KLEE: done: pspa chop: functions not skipped (they may end the path) = 4, calls by invoke run (not skipped) = 0
// RUN: %python %checks same-errors %t.pspa %t.base
// RUN: %python %checks same-errors %t.spa %t.base
#include "klee/klee.h"
#include <stdlib.h>

int counter;

void check_input(int x) {
  if (x > 10)
    exit(1);
}

void narrow(int x) { klee_assume(x < 5); }

_Noreturn void die(void) { abort(); }

void bye(int code) { klee_silent_exit(code); }
void (*handler)(int) = bye;
void quiet(int x) {
  if (x == 3)
    handler(0);
}

void helper(void) { counter++; }

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  check_input(x);
  klee_assert(x <= 10);
  narrow(x);
  klee_assert(x < 5);
  quiet(x);
  klee_assert(x != 3);
  helper();
  if (x == 0)
    die();
  return 0;
}
