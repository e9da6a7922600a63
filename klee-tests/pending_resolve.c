// A pending skipped call's writes in the state another client analyses (issue: right
// answers). `setup` stores &b into o.p; it is skipped. `use(i)` is called while setup is
// pending, and its snapshot (--pspa-resolve-snapshots=all) is taken then: in KLEE's state
// o.p still points to a. use() loads o.p, which setup may write: setup is recovered and
// o.p becomes &b; then o.p[i] is a symbolic dereference into b. A snapshot that ignored
// the pending setup would say o.p points to a only, prune b, and KLEE would report a false
// "out of bound pointer" and miss the assertion on b[2] == 7. Joined with setup's
// post-state, o.p may point to a or b: b is kept.
// KLEE alone: i in 0..3 reads b[i]; b[2] == 7 fails the assertion: 1 error, 2 tests.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: ASSERTION FAIL
// BASE: KLEE: done: generated tests = 2
// RUN: %klee --skip-functions=setup --pspa-resolve --pspa-resolve-snapshots=all --pspa-resolve-validate --pspa-check --pspa-analyze=use --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --skip-functions=setup --pspa-resolve --pspa-resolve-snapshots=all --pspa-resolve-validate --pspa-check --pspa-analyze=use --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: out of bound pointer
// CHECK: ASSERTION FAIL
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9]}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// CHECK: mismatches = 0
// CHECK: KLEE: done: generated tests = 2
#include "klee/klee.h"
#include <assert.h>

int a[4];
int b[4] = {0, 0, 7, 0};
struct holder {
  int *p;
} o;

void setup(void) { o.p = b; }

int use(unsigned i) { return o.p[i]; }

int main(void) {
  unsigned i;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i < 4);
  o.p = a;
  setup();
  klee_assert(use(i) != 7);
  return 0;
}
