// Two skipped calls, the second's writes depending on the first's: link sets S.p = &g2,
// then store writes *S.p = 5. Before them S.p = &g3.
// main reads g2. link's mod set is {S.p}: not g2. store's: its snapshot still has
// S.p = &g3, and link is pending there, so a mod set computed from that state alone would
// be {g3} and miss g2 (the run would then read g2 == 0 and fail the first assertion). The
// plugin joins the snapshot with link's post-state (paper 6.2: S.p may point to g3 or
// g2), so store's mod set is {g2, g3} (SPA: the same, whole-program): store is recovered. Its recovery loads S.p, in link's mod set:
// link is recovered inside it (the snapshot's pending skip), so the recovery writes g2,
// and both skips are done for main. Reading g3 then needs nothing: 2 recovery states.
// The byte order: g3's 0 stays (store wrote g2, not g3), and the last assertion reads
// S.p as link left it.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.spa
// RUN: %klee --skip-functions=link,store --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --skip-functions=link,store --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: ASSERTION FAIL
// CHECK: KLEE: done: recovery states = 2
// CHECK: KLEE: done: created snapshots = 2
// CHECK: mod sets joined with older pending skips' post-states = {{[01]}},
// CHECK: KLEE: done: completed paths = 1
#include "klee/klee.h"
#include <assert.h>

int g2, g3;
struct s {
  int *p;
} S;

void link(void) { S.p = &g2; }
void store(void) { *S.p = 5; }

int main(void) {
  S.p = &g3;
  link();
  store();
  klee_assert(g2 == 5);
  klee_assert(g3 == 0);
  klee_assert(S.p == &g2);
  return 0;
}
