// Skipped functions that may end the path or constrain its input (issue: right answers).
// A path that ran on past such a call would report what cannot happen: after
// `check_input(x)` (which exits when x > 10) main asserts x <= 10, which KLEE alone never
// fails; after `quiet(x)` (klee_silent_exit through a function pointer when x == 3) main
// asserts x != 3. And the mirror case: `maybe_abort(x)` aborts when x == 1 and writes
// nothing, so no load ever recovers it: KLEE alone reports that abort.
// The rules:
// - a call that may end the path (its analysis reaches exit, abort, a failed assertion,
//   klee_silent_exit, an `unreachable`...) is skipped, but when the path itself is about
//   to end (a call of such a handler: the failed assertion, main's exit(0)), the pending
//   calls that may end it are recovered first, oldest first: check_input's recovery exits
//   on the x > 10 path, quiet's ends the x == 3 path silently, maybe_abort's reports the
//   abort at its own line. So no assertion fails that KLEE alone does not fail.
// - `narrow(x)` (klee_assume) is not skipped: a recovery under a path that contradicts
//   the assumption would fail it. `die()` is _Noreturn: the instruction after its call is
//   `unreachable`, so it is not skipped either. One warning each.
// - `helper()` ends nothing: skipped, never recovered.
// KLEE alone and both chopped runs: the same two aborts (die's and maybe_abort's), at the
// same lines.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa %t.drop
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-NOT: ASSERTION FAIL
// BASE: KLEE: done: completed paths = [[PATHS:[0-9]+]]
// The mirror case needs --pspa-chop-skipped-errors: without it, a path's clean end (main's
// exit(0)) drops its pending calls instead of recovering those that may end it (below).
// With SPA, narrow is refused at start-up. With PSPA, whose answers follow the state's
// function pointers, a function the whole program says may constrain the input is checked
// at each call: narrow calls klee_assume directly, so its one call is run, not skipped.
// RUN: %klee --skip-functions=check_input,narrow,die,quiet,maybe_abort,helper --pspa-chop-skipped-errors --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefixes=CHECK,PSPA
// RUN: %klee --skip-functions=check_input,narrow,die,quiet,maybe_abort,helper --pspa-chop-skipped-errors --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefixes=CHECK,SPA
// PSPA: KLEE: pspa chop: --skip-functions: narrow may constrain the path's input per the whole program (narrow -> klee_assume): each call is skipped only if its past-sensitive analysis says it cannot
// SPA: KLEE: WARNING: pspa chop: --skip-functions: narrow is not skipped: it may constrain the path's input (narrow -> klee_assume)
// CHECK: KLEE: WARNING: pspa chop: --skip-functions: die is not skipped: it does not return
// CHECK-NOT: ASSERTION FAIL
// CHECK-NOT: unreachable
// CHECK: KLEE: done: created snapshots = {{[1-9][0-9]*}}
// PSPA: KLEE: done: pspa chop: functions not skipped (noreturn, or constrain the input) = 1, calls by invoke run (not skipped) = 0, recovered before the path ends (the call may end it) = {{[1-9][0-9]*}}, calls run because they may constrain the input (past-sensitive) = 1
// SPA: KLEE: done: pspa chop: functions not skipped (noreturn, or constrain the input) = 2, calls by invoke run (not skipped) = 0, recovered before the path ends (the call may end it) = {{[1-9][0-9]*}}, calls run because they may constrain the input (past-sensitive) = 0
// RUN: %python %checks same-errors %t.pspa %t.base
// RUN: %python %checks same-errors %t.spa %t.base
// Without the option (the default, Chopper's semantics): errors inside skipped calls are
// not searched for at a clean end. maybe_abort's abort is dropped with the call at exit(0),
// and still no error is reported past a call that may end the path: check_input and quiet
// are recovered before the failing assertions as before. die's abort (not skipped) stays.
// RUN: %klee --skip-functions=check_input,narrow,die,quiet,maybe_abort,helper --output-dir=%t.drop %t.bc > %t.drop.log 2>&1
// RUN: %FileCheck %s --check-prefix=DROP < %t.drop.log
// RUN: %not grep -q 'ASSERTION FAIL\|chop_noreturn.c:74' %t.drop.log
// DROP: KLEE: ERROR: {{.*}}chop_noreturn.c:63: abort failure
// DROP: pending calls dropped at a clean path end (exit: their writes could only be output) = {{[1-9][0-9]*}}
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

void maybe_abort(int x) {
  if (x == 1)
    abort();
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
  maybe_abort(x);
  helper();
  if (x == 0)
    die();
  exit(0);
}
