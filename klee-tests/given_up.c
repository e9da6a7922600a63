// A symbolic address given up on is not resolved again (ReadContext::givenUp). s.p holds
// tab[i] for a symbolic i < 2: an address into a or b, which the reading resolves with
// KLEE's solver. With --pspa-max-resolutions=1 two targets are too many: outer's reading
// gives the slot an unknown target. inner, analysed inside outer with the same path
// constraints, reads the same slot: unknown at once, without the solver ("given up on
// before = 1"). With the default bound (64) both calls resolve it to {a, b}. The check
// finds both calls' accesses in their sets either way (an unknown target may be anything).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.one %t.all
// RUN: %klee --pspa-stats --pspa-check --pspa-analyze=outer,inner --pspa-max-resolutions=1 --output-dir=%t.one %t.bc 2>&1 | %FileCheck %s --check-prefix=ONE
// ONE: KLEE: done: pspa failures = 0
// ONE: KLEE: done: pspa slots: concrete = {{[0-9]+}}, symbolic addresses = 2, symbolic data = 0, unknown (pointer-typed input) = 0, unknown (too many targets) = 1, unknown (read from memory, not a pointer field) = 0, unknown (over the read budget) = 0, unknown (given up on before) = 1;
// ONE: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %klee --pspa-stats --pspa-check --pspa-analyze=outer,inner --output-dir=%t.all %t.bc 2>&1 | %FileCheck %s --check-prefix=ALL
// ALL: KLEE: done: pspa slots: concrete = {{[0-9]+}}, symbolic addresses = 2, symbolic data = 0, unknown (pointer-typed input) = 0, unknown (too many targets) = 0, unknown (read from memory, not a pointer field) = 0, unknown (over the read budget) = 0, unknown (given up on before) = 0;
// ALL: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include "klee/klee.h"

int a[4], b[4];
int *tab[2] = {a, b};
struct S {
  int *p;
} s;

__attribute__((noinline)) void inner(struct S *x) { *x->p = 1; }
__attribute__((noinline)) void outer(struct S *x) { inner(x); }

int main(void) {
  unsigned i;
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i < 2);
  s.p = tab[i];
  outer(&s);
  return a[0] + b[0];
}
