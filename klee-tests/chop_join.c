// Chopping's own mod sets while an older skip is pending (issue: right answers): the
// later call's analysis joins the older call's post-state (paper 6.2) instead of taking
// the whole-program mod set, which gives away the precision PSPA exists for.
// link() sets S.p = &g2 and store() writes *S.p; both are skipped. At store's skip, KLEE's
// state has S.p = &g3 (link has not run): joined with link's post-state, S.p may point
// to g3 or g2, so store's mod set is {g2, g3}. The whole-program mod set is {g2, g3, g4}:
// later, main points S.p at g4 itself. main then reads g4 before writing it.
// With PSPA, that read recovers nothing (g4 is in neither pending call's mod set): 0
// recovery states. The whole-program fallback (the old answer when an older skip is
// pending) and SPA recover store there (a spurious recovery: it writes g2), and link
// inside it when the recovery loads S.p: 2 recovery states.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.spa
// RUN: %klee --skip-functions=link,store --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA-NOT: ASSERTION FAIL
// PSPA: KLEE: done: recovery states = 0
// PSPA: KLEE: done: created snapshots = 2
// PSPA: mod sets joined with older pending skips' post-states = 1,
// RUN: %klee --skip-functions=link,store --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA-NOT: ASSERTION FAIL
// SPA: KLEE: done: recovery states = 2
#include "klee/klee.h"

int g2, g3, g4;
struct s {
  int *p;
} S;

void link(void) { S.p = &g2; }
void store(void) { *S.p = 5; }

int main(void) {
  S.p = &g3;
  link();
  store();
  klee_assert(g4 == 0);
  S.p = &g4;
  *S.p = 2;
  klee_assert(g4 == 2);
  return 0;
}
