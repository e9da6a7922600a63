// A symbolic address that resolves, but slowly, strikes when its call's reading gives an
// unknown target all the same (KleeStateView::slowResolved, ReadContext::givenUp): the
// time it took bought no precision. s.p = &a[i] (i < 4) resolves to a alone; s.q = tab[j]
// (j < 2) to a or b, too many under --pspa-max-resolutions=2: an unknown target, given up
// on at once. f(&s) is called three times on one path, its reading going p, then q; the
// store through q in the first call forks the path in two (q is a, q is b), so calls 2
// and 3 run on each: five analysed calls. With every resolution counted as slow
// (--pspa-slow-resolve-ms=0):
//   call 1: p resolves (slow, kept aside); q has too many targets: q is given up, p strikes;
//   call 2 (q is a): p resolves again (one strike; slow, kept aside); q is given up on at
//           once: p strikes again;
//   call 3 (q is a), calls 2 and 3 (q is b): p and q are both given up on at once.
// Ten symbolic addresses read, one with too many targets, seven given up on at once.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.slow %t.fast
// RUN: %klee --pspa-stats --pspa-check --pspa-analyze=f --pspa-max-resolutions=2 --pspa-slow-resolve-ms=0 --output-dir=%t.slow %t.bc 2>&1 | %FileCheck %s --check-prefix=SLOW
// SLOW: KLEE: done: pspa slots: concrete = {{[0-9]+}}, symbolic addresses = 10, symbolic data = 0, unknown (pointer-typed input) = 0, unknown (too many targets) = 1, unknown (read from memory, not a pointer field) = 0, unknown (over the read budget) = 0, unknown (given up on before) = 7;
// SLOW: KLEE: done: pspa check: calls checked = 5, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// No resolution is slow under a bound of 1 s: p resolves at every call, only q is given up on
// (the four calls after the first).
// RUN: %klee --pspa-stats --pspa-check --pspa-analyze=f --pspa-max-resolutions=2 --pspa-slow-resolve-ms=1000 --output-dir=%t.fast %t.bc 2>&1 | %FileCheck %s --check-prefix=FAST
// FAST: KLEE: done: pspa slots: concrete = {{[0-9]+}}, symbolic addresses = 10, symbolic data = 0, unknown (pointer-typed input) = 0, unknown (too many targets) = 1, unknown (read from memory, not a pointer field) = 0, unknown (over the read budget) = 0, unknown (given up on before) = 4;
// FAST: KLEE: done: pspa check: calls checked = 5, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include "klee/klee.h"

int a[4], b[4];
int *tab[2] = {a, b};
struct S {
  int *p;
  int *q;
} s;

__attribute__((noinline)) void f(struct S *x) {
  *x->p = 1;
  *x->q = 2;
}

int main(void) {
  unsigned i, j;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_make_symbolic(&j, sizeof j, "j");
  klee_assume(i < 4);
  klee_assume(j < 2);
  s.p = &a[i];
  s.q = tab[j];
  f(&s);
  f(&s);
  f(&s);
  return a[0] + b[0];
}
