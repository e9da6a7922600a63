// A skipped logging function whose only effect is output (issue: chopping that pays off).
// `log_msg` forks on its symbolic argument (4 ways) and writes stderr's FILE state through
// uclibc's fprintf; main never reads stdio. The only loads of what it wrote come when the
// path ends: exit runs the atexit handlers, then uclibc's `_stdio_term` flushes the
// streams (the loop at _stdio.c:261), then `_exit`. Nothing of the program runs after
// `_stdio_term`, and a KLEE test holds the input that leads to the end, not the output, so
// the pending skips are dropped there instead of recovered: before this rule every one of
// them was recovered at _stdio.c:261 (14 recoveries on this program).
// What still recovers: `klee_assert(x != 42)` fails on x == 42, an error report, and
// log_msg "may end the path" (uclibc's number formatting divides by a variable, so KLEE's
// division check may report an error inside it): before reporting, the path recovers the
// pending log_msg calls that may end it, so that it never reports an error past a call
// that ended it. The failing path (x == 42) has three pending calls ("input", "checked",
// "result"): 3 recoveries, oldest first. The two other paths end cleanly: x > 1000 with 2
// pending calls ("input", "result"), x <= 1000 and x != 42 with 3: 5 dropped.
// KLEE alone explores log_msg's forks at every call: 8 completed paths and the assertion.
// Chopped (SPA or PSPA: the rule does not depend on the mod sets): the same assertion,
// fewer paths (2 completed) and fewer instructions.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa %t.errs
// RUN: %klee --libc=uclibc --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: ASSERTION FAIL: x != 42
// BASE: KLEE: done: completed paths = 8
// RUN: %klee --libc=uclibc --skip-functions=log_msg --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --libc=uclibc --skip-functions=log_msg --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s
// CHECK: ASSERTION FAIL: x != 42
// CHECK: KLEE: done: recovery states = 3
// CHECK: recoveries waited for by a load or a free = 0,
// CHECK: recovered before the path ends (the call may end it) = 3
// CHECK: pending calls dropped at a clean path end (exit: their writes could only be output) = 5
// CHECK: KLEE: done: completed paths = 2
// RUN: %python %checks same-errors %t.pspa %t.base
// RUN: %python %checks same-errors %t.spa %t.base
// RUN: %python %checks fewer-instructions %t.pspa %t.base
// With --posix-runtime, fprintf's write goes through KLEE's POSIX model, which concretizes
// its buffer (`__concretize_ptr`: klee_assume of a value klee_get_value just picked). That
// narrows what KLEE explores, not what the program does, and holds under any constraints a
// recovery runs under: it does not make log_msg "constrain the input", so it is skipped
// all the same (before, every call ran: 8 paths, no chopping).
// RUN: rm -rf %t.posix
// RUN: %klee --libc=uclibc --posix-runtime --skip-functions=log_msg --output-dir=%t.posix %t.bc 2>&1 | %FileCheck %s --check-prefix=POSIX
// POSIX-NOT: may constrain
// POSIX: ASSERTION FAIL: x != 42
// POSIX: calls run because they may constrain the input (past-sensitive) = 0
// POSIX: KLEE: done: completed paths = 2
// And with --pspa-chop-skipped-errors the clean ends recover the calls that may end the
// path too (to find errors inside them), as before the rule: more recoveries, none dropped
// unless it cannot end the path.
// RUN: %klee --libc=uclibc --skip-functions=log_msg --pspa-chop-skipped-errors --output-dir=%t.errs %t.bc 2>&1 | %FileCheck %s --check-prefix=ERRS
// ERRS: ASSERTION FAIL: x != 42
// ERRS: pending calls dropped at a clean path end (exit: their writes could only be output) = 0
#include "klee/klee.h"
#include <stdio.h>

static int level = 1;

void log_msg(const char *what, int v) {
  if (level > 0) {
    if (v < 0)
      fprintf(stderr, "%s: negative\n", what);
    else if (v == 0)
      fprintf(stderr, "%s: zero\n", what);
    else if (v < 100)
      fprintf(stderr, "%s: small\n", what);
    else
      fprintf(stderr, "%s: large\n", what);
  }
}

int classify(int x) {
  log_msg("input", x);
  if (x > 1000)
    return 2;
  log_msg("checked", x - 1);
  return x == 42;
}

int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  int r = classify(x);
  log_msg("result", r);
  if (r == 1)
    klee_assert(x != 42);
  return 0;
}
