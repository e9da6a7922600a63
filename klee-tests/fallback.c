// Two conservative fallbacks, neither a failure: input bytes in a pointer-typed field
// (v.p, wholly symbolic; and each of the three elements of the heap array arr, typed by its
// cast to struct s*, the object being larger than its type) and a symbolic address with
// more targets than --pspa-max-resolutions=2 allows (w.p = choices[i], i < 3) become the
// `unknown` target, which points to itself: each call's ref-set holds unknown.* ("may
// touch anything"), the CSV says unknown = 1, and KLEE runs to the end.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.snaps
// RUN: %klee --pspa-check --pspa-analyze=use --pspa-max-resolutions=2 --pspa-stats --pspa-dump-snapshots=%t.snaps --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 3 (pspa)
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa slots: {{.*}}, unknown (pointer-typed input) = 4, unknown (too many targets) = 1
// `use` touches only its own locals (go is 0): no access to check, none outside.
// CHECK: KLEE: done: pspa check: calls checked = 3, accesses = 0, outside mod/ref = 0
// CHECK: KLEE: done: completed paths = 1
// The CSV's columns: function, line, mode, ok, then reused, mod, ref, their stripped sizes,
// projected objects and microseconds; unknown (1); objects read, answer bytes, work, rounds
// (at least 1: each call read the state), solve microseconds and whole_program (0: the
// past-sensitive analysis answered), writeless (0: --pspa-check analyses every call).
// RUN: %FileCheck %s --check-prefix=CSV < %t.klee/pspa-calls.csv
// CSV: use,{{[0-9]+}},pspa,1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[1-9][0-9]*}},{{[0-9]+}},0,0{{$}}
// CSV: use,{{[0-9]+}},pspa,1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[1-9][0-9]*}},{{[0-9]+}},0,0{{$}}
// CSV: use,{{[0-9]+}},pspa,1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},1,{{[0-9]+}},{{[0-9]+}},{{[0-9]+}},{{[1-9][0-9]*}},{{[0-9]+}},0,0{{$}}
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv use ref 46 unknown.*
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv use ref 47 unknown.*
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv use ref 50 unknown.*
// RUN: %python %checks replay %t.snaps %pspa
#include "klee/klee.h"
#include <stdlib.h>

int a, b, c;
struct s { int *p; };

// The dereference never runs (go is 0), so KLEE does not fork on the symbolic pointers;
// the analysis is flow-insensitive and sees it.
int use(struct s *x, int go) { return go ? *x->p : 0; }

int main(void) {
  struct s v, w;
  int *choices[3] = {&a, &b, &c};
  unsigned i;
  klee_make_symbolic(&v, sizeof v, "v");
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i < 3);
  w.p = choices[i];
  int r = use(&v, 0);
  r += use(&w, 0);
  struct s *arr = malloc(3 * sizeof *arr);
  klee_make_symbolic(arr, 3 * sizeof *arr, "arr");
  r += use(&arr[2], 0);
  return r;
}
