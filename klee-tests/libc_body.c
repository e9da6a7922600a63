// A defined libc function whose body the analysis replaces by its model (issue: right
// answers). With --libc=uclibc, strcpy has a body (uclibc's); the analysis never analyses
// it: each call applies the model (write what the first argument points to, read what the
// second does), and strcpy's own mod/ref is the model's on what its formals point to. Its
// SPA mod set was empty: chopping never recovered a skipped strcpy, so buf kept its zeros
// and KLEE missed the assertion (1 path instead of KLEE's), and --pspa-check counted
// uclibc's body's accesses outside.
// The program: strcpy copies 3 symbolic bytes into buf; main branches on buf[0] and fails
// the assertion when buf[1] == 'b'. KLEE alone: the failure, and paths for buf[0] == 'a'
// or not. Chopped (strcpy skipped, SPA and PSPA): the load of buf[0] recovers strcpy,
// the same error and tests.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.spa %t.pspa %t.check %t.checkp
// RUN: %klee --libc=uclibc --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: ASSERTION FAIL: buf[1] != 'b'
// BASE: KLEE: done: generated tests = [[TESTS:[0-9]+]]
// RUN: %klee --libc=uclibc --skip-functions=strcpy --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --libc=uclibc --skip-functions=strcpy --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP: ASSERTION FAIL: buf[1] != 'b'
// CHOP: KLEE: done: recovery states = 1
// RUN: %python %checks same-errors %t.spa %t.base
// RUN: %python %checks same-errors %t.pspa %t.base
// RUN: %klee --libc=uclibc --pspa-analyze=strcpy --pspa-check --pspa-mode=spa --output-dir=%t.check %t.bc 2>&1 | %FileCheck %s --check-prefix=CHECK
// RUN: %klee --libc=uclibc --pspa-analyze=strcpy --pspa-check --output-dir=%t.checkp %t.bc 2>&1 | %FileCheck %s --check-prefix=CHECK
// CHECK: KLEE: done: pspa check: calls checked = 1, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include "klee/klee.h"
#include <string.h>

char buf[8];

int main(void) {
  char src[4];
  klee_make_symbolic(src, sizeof src, "src");
  src[3] = 0;
  strcpy(buf, src);
  if (buf[0] == 'a')
    buf[4] = 1;
  klee_assert(buf[1] != 'b');
  return 0;
}
