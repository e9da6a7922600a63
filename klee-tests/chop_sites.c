// Past-sensitivity saves a recovery: a and b come from one allocation site (mk's malloc).
// set(a) is skipped; main then reads *b only. SPA's mod set of set is that site, which b's
// object has too: 1 recovery (spurious: set never writes b). PSPA analyses set from the
// state at the call, where a and b are distinct objects: its mod set is a's object, and
// reading *b needs no recovery. Both runs end on one path with b's 0.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.spa
// RUN: %klee --skip-functions=set --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// RUN: %klee --skip-functions=set --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// PSPA-NOT: ASSERTION FAIL
// PSPA: KLEE: done: recovery states = 0
// PSPA: KLEE: done: created snapshots = 1
// PSPA: KLEE: done: pspa chop: recoveries waited for by a load or a free = 0, of which the call wrote none of those bytes (spurious) = 0
// SPA-NOT: ASSERTION FAIL
// SPA: KLEE: done: recovery states = 1
// SPA: KLEE: done: created snapshots = 1
// SPA: KLEE: done: pspa chop: recoveries waited for by a load or a free = 1, of which the call wrote none of those bytes (spurious) = 1
#include "klee/klee.h"
#include <assert.h>
#include <stdlib.h>

int *mk(void) { return malloc(sizeof(int)); }
void set(int *p) { *p = 1; }

int main(void) {
  int *a = mk(), *b = mk();
  *a = 0;
  *b = 0;
  set(a);
  klee_assert(*b == 0);
  return 0;
}
