// A pending skip's post-state reaches an object the later call's state does not reach
// (issue: right answers). setup() stores &X into gp; it is skipped. main then makes X.p
// point to b (it pointed to a when setup was skipped) and calls use(), analysed and
// checked while setup is pending: in KLEE's state gp is still null, so use()'s projection
// (its root is gp) never meets X. setup's post-state says gp may point to X, and X.p to
// a, as X was then. use() loads gp (recovering setup), then gp->p (X.p == &b now), then
// *gp->p: b. The join must read X as it is now (X.p = &b), not as the post-state saw it:
// else b is outside use's ref set.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.eager
// RUN: %klee --skip-functions=setup --pspa-analyze=use --pspa-check --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --skip-functions=setup --pspa-analyze=use --pspa-check --pspa-eager-projection --output-dir=%t.eager %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: ASSERTION FAIL
// CHECK: KLEE: done: pspa check: calls checked = 1, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// CHECK: KLEE: done: recovery states = 1
#include "klee/klee.h"

int a, b = 7;
struct node {
  int *p;
} X;
struct node *gp;

void setup(void) { gp = &X; }
int use(void) { return *gp->p; }

int main(void) {
  X.p = &a;
  setup();
  X.p = &b;
  klee_assert(use() == 7);
  return 0;
}
