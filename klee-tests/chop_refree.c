// A recovery whose snapshot predates an older skipped call the path has recovered since.
// del(&p) frees the node and clears p; probe(&out) reads p. Both are skipped; probe's
// snapshot has del pending.
//  1. main reads p: del may have written it, so del is recovered in the path: the node is
//     freed there (1 recovery).
//  2. main reads out: probe is recovered from its snapshot, where del has not run.
// By default (--pspa-chop-replay) the path's record of what del did (p cleared, the node
// freed) is replayed into probe's recovery before it runs: probe reads p == 0, nothing is
// run again. 2 recovery states, 2 snapshots, 1 replay, no fallback.
// With --pspa-chop-replay=off, probe reads p, so del is recovered inside it, again (2
// recoveries). That del frees the node a second time in the allocator the recoveries
// share with the path, which already freed it: KLEE's allocator would abort. The mechanism
// instead falls back (1, counted): the path runs on from del's snapshot with the call not
// skipped, skips probe again (a third snapshot) and recovers it at the read of out (1
// recovery): 4 recovery states, 3 snapshots.
// Either way the run ends as KLEE alone: one path, no error (out == 1 holds).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa %t.norep %t.norepspa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-NOT: ERROR
// BASE: KLEE: done: completed paths = 1
// RUN: %klee --skip-functions=del,probe --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=REPLAY
// RUN: %klee --skip-functions=del,probe --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=REPLAY
// REPLAY-NOT: ERROR
// REPLAY: KLEE: done: recovery states = 2
// REPLAY: KLEE: done: created snapshots = 2
// REPLAY: KLEE: done: pspa chop: {{.*}}(allocation clash, double free, external call) = 0
// REPLAY: KLEE: done: pspa chop: recovered calls replayed into younger recoveries instead of run again = 1
// REPLAY: KLEE: done: completed paths = 1
// RUN: %klee --skip-functions=del,probe --pspa-chop-replay=false --output-dir=%t.norep %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// RUN: %klee --skip-functions=del,probe --pspa-chop-replay=false --pspa-mode=spa --output-dir=%t.norepspa %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP-NOT: ERROR
// CHOP: KLEE: done: recovery states = 4
// CHOP: KLEE: done: created snapshots = 3
// CHOP: KLEE: done: pspa chop: {{.*}}(allocation clash, double free, external call) = 1
// CHOP: KLEE: done: pspa chop: recovered calls replayed into younger recoveries instead of run again = 0
// CHOP: KLEE: done: completed paths = 1
#include "klee/klee.h"
#include <stdlib.h>

struct node { int v; };
struct node *p;
int out;

void del(struct node **pp) { free(*pp); *pp = 0; }
void probe(int *o) { *o = (p == 0); }

int main(void) {
  p = malloc(sizeof *p);
  p->v = 1;
  del(&p);
  probe(&out);
  int c = (p == 0);
  klee_assert(out == 1);
  return c;
}
