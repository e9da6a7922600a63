// The whole-program fallback (--pspa-fallback, default whole-program): a call the
// past-sensitive analysis cannot answer gets its function's whole-program answer, sound for
// every state, instead of none.
// link() sets S.p = &g2 and S.q = &g3; store() writes *S.p; both are skipped. main then
// reads g5, which nothing writes, and g4, which main itself points S.p at later.
// With a work budget of one element, link's solve goes over it (it offers two elements):
// its answer is the whole-program one, which has no post-state, so store's analysis (link
// pending) cannot join one and falls back too. The whole-program sets: link mod {S.p,
// S.q}; store mod {g2, g3, g4} (S.p takes &g2, &g3 and &g4 somewhere in the program), ref
// {S.p}. So the read of g5 recovers nothing; the read of g4 recovers store (spurious: it
// writes g2), whose load of S.p recovers link (which wrote it): 2 recovery states, 1
// spurious. (symbolic_pointer.c checks a fallback answer against the accesses KLEE makes.)
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.wp %t.unknown %t.spa %t.pspa
// RUN: %klee --skip-functions=link,store --pspa-max-work=1 --output-dir=%t.wp %t.bc 2>&1 | %FileCheck %s --check-prefix=WP
// WP-NOT: ASSERTION FAIL
// WP: KLEE: done: pspa failures = 0
// WP: KLEE: done: pspa whole-program answers = 2 (calls the past-sensitive analysis could not answer; 1 over the work budget; whole-program analysis {{[0-9.]+}} s, functions answered = 2)
// WP: KLEE: done: recovery states = 2
// WP: recoveries waited for by a load or a free = 2, of which the call wrote none of those bytes (spurious) = 1
// WP: KLEE: done: completed paths = 1
// The CSV's last column marks both calls, and their sets have the sizes of the CLI's
// whole-program analysis of the same bitcode (link: 2 and 0; store: 3 and 1).
// RUN: %python %checks whole-program %t.wp/pspa-calls.csv %pspa %t.bc link store
// --pspa-mode=spa recovers the same.
// RUN: %klee --skip-functions=link,store --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA: KLEE: done: recovery states = 2
// SPA: recoveries waited for by a load or a free = 2, of which the call wrote none of those bytes (spurious) = 1
// Without the fallback both calls fail, with no answer (link over the budget, store for
// want of link's post-state): the read of g5, the first load after the skips, recovers
// both, neither of which wrote it (2 spurious).
// RUN: %klee --skip-functions=link,store --pspa-max-work=1 --pspa-fallback=unknown --output-dir=%t.unknown %t.bc 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN-NOT: ASSERTION FAIL
// UNKNOWN: KLEE: done: pspa failures = 2 (1 over the work budget)
// UNKNOWN: KLEE: done: recovery states = 2
// UNKNOWN: recoveries waited for by a load or a free = 2, of which the call wrote none of those bytes (spurious) = 2
// UNKNOWN: KLEE: done: completed paths = 1
// Within the budget, PSPA's own answers (store's mod set {g2, g3}, joined with link's
// post-state) recover nothing.
// RUN: %klee --skip-functions=link,store --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA: KLEE: done: pspa failures = 0
// PSPA-NOT: whole-program answers
// PSPA: KLEE: done: recovery states = 0
#include "klee/klee.h"

int g2, g3, g4, g5;
struct s {
  int *p, *q;
} S;

void link(void) {
  S.p = &g2;
  S.q = &g3;
}
void store(void) { *S.p = 5; }

int main(void) {
  S.p = &g3;
  link();
  store();
  klee_assert(g5 == 0);
  klee_assert(g4 == 0);
  S.p = &g4;
  *S.p = 2;
  klee_assert(g4 == 2);
  return 0;
}
