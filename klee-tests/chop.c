// Chopped symbolic execution (--skip-functions): each skipped call is recovered exactly
// when main reads what it wrote, and the run finds what KLEE alone finds.
//   touch:  writes `unrelated`, which nothing reads: skipped for good (a snapshot, no
//           recovery).
//   set_g:  the planted bug: g == x only through set_g's write, so the assertion fails
//           (x == 42) only if the recovery brings g in. 1 recovery, then 2 paths; the
//           failing one ends.
//   pick:   forks inside the recovery (x > 10 or not): the waiting path forks with it,
//           each copy with its branch's y. 1 recovery, 2 paths.
//   put:    writes a[i] at a symbolic offset; main reads a[i]: on each of the 2 paths, 1
//           recovery.
//   mk:     allocates inside the recovery and stores the new object's address in b.q;
//           main reads b.q (1 recovery per path, 2), then *b.q, an object the path did
//           not have until the recovery bound it (no recovery: allocated after the skip).
//   seven:  its result is used: skipped all the same; the comparison that uses it waits for
//           its recovery, which binds the result (once per path, 2).
// Snapshots: touch, set_g, pick 1 each, put, mk and seven 2 each = 9. Recoveries:
// 1 + 1 + 2 + 2 + 2 = 8. Paths: pick's two completed and the x == 42 error (a partial path), as KLEE alone. With SPA the mod sets
// are the same here (each function writes one global, or what its argument points to,
// which is one object): the same counts. touch stays pending to the end, yet the later
// calls keep their past-sensitive mod sets: none of them reads `unrelated`.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa %t.nosearch
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: ASSERTION FAIL: g != 42
// BASE: KLEE: done: completed paths = 2
// BASE: KLEE: done: partially completed paths = 1
// RUN: %klee --skip-functions=touch,set_g,pick,put,mk,seven --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=touch,set_g,pick,put,mk,seven --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=touch,set_g,pick,put,mk,seven --pspa-chop-searcher=off --output-dir=%t.nosearch %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP: ASSERTION FAIL: g != 42
// CHOP: KLEE: done: recovery states = 8
// CHOP: KLEE: done: created snapshots = 9
// CHOP: KLEE: done: pspa chop: recoveries ended before returning = 0, recovered before a write at a symbolic offset = 0, skipped calls whose result is used = 2, mod sets joined with older pending skips' post-states = {{[0-9]+}}
// Every recovery waited for by a load (set_g 1, pick 1, put 2, mk 2; seven's 2 wait for
// its result) brought in bytes the call wrote: none is spurious.
// CHOP: KLEE: done: pspa chop: recoveries waited for by a load or a free = 6, of which the call wrote none of those bytes (spurious) = 0
// CHOP: KLEE: done: completed paths = 2
// CHOP: KLEE: done: partially completed paths = 1
// The error is reported at the same line, and chop.csv names the loads that recovered.
// RUN: %python %checks same-errors %t.base %t.pspa
// RUN: %python %checks same-errors %t.base %t.spa
// RUN: grep -q '^set_g,1,1,0,"chop.c:[0-9]*x1",0,[0-9.]*,[0-9.]*,[1-9][0-9]*,""$' %t.pspa/chop.csv
// RUN: grep -q '^touch,1,0,0,"",0,[0-9.]*,[0-9.]*,0,""$' %t.pspa/chop.csv
// RUN: grep -q '^seven,2,2,2,"chop.c:[0-9]*x2",0,[0-9.]*,[0-9.]*,[1-9][0-9]*,""$' %t.pspa/chop.csv
#include "klee/klee.h"
#include <assert.h>
#include <stdlib.h>

int g, unrelated, a[4];
struct box {
  int *q;
};

void touch(void) { unrelated = 1; }
void set_g(int v) { g = v; }
void pick(int *p, int x) {
  if (x > 10)
    *p = 1;
  else
    *p = 2;
}
void put(int i) { a[i] = 7; }
void mk(struct box *b) {
  b->q = malloc(sizeof(int));
  *b->q = 9;
}
int seven(void) { return 7; }

int main(void) {
  int x, i, y = 0;
  struct box b = {0};
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i >= 0 & i < 4);
  touch();
  set_g(x);
  klee_assert(g != 42);
  pick(&y, x);
  klee_assert(y == (x > 10 ? 1 : 2));
  put(i);
  klee_assert(a[i] == 7);
  mk(&b);
  klee_assert(*b.q == 9);
  klee_assert(seven() == 7);
  return 0;
}
