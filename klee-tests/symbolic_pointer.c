// A pointer-typed cell KLEE made symbolic may hold any address. Past-sensitively, the
// state's symbolic cell is the `unknown` target, so put()'s answer may write anything. The
// whole-program fallback answers the same: klee_make_symbolic of an object with a pointer
// field makes it hold the `unknown` object (Effect::Symbolic), so put's whole-program mod
// set names it. With a budget of one
// element put's call gets that answer, and the check finds every access of it inside: the
// store through the symbolic v.p, which KLEE resolves to each object it may hit (a, b, v).
// (When klee_make_symbolic was a plain write, put's whole-program mod set was empty and
// those stores were outside.)
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.wp %t.pspa
// RUN: %klee --pspa-check --pspa-analyze=put --pspa-max-work=1 --output-dir=%t.wp %t.bc 2>&1 | %FileCheck %s --check-prefix=WP
// WP: KLEE: done: pspa whole-program answers = 1 (
// WP: KLEE: done: pspa check: calls checked = 1, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %klee --pspa-check --pspa-analyze=put --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA: KLEE: done: pspa failures = 0
// PSPA-NOT: whole-program answers
// PSPA: KLEE: done: pspa check: calls checked = 1, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include "klee/klee.h"

struct s {
  int *p;
  int n;
};
int a, b;

void put(struct s *x) { *x->p = 1; }

int main(void) {
  struct s v;
  klee_make_symbolic(&v, sizeof v, "v");
  put(&v);
  return a + b;
}
