// The plugin's statistics are columns of run.stats, shown by klee-stats.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee
// RUN: %klee --pspa-check --pspa-analyze=f --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s --check-prefix=CHK
// CHK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %klee-stats --print-all --table-format=csv %t.klee | %FileCheck %s
// CHECK: PspaAnalyses,PspaCalls,PspaFailures,PspaOwnQueries,PspaResolveAccesses,PspaResolveFromSet,PspaResolveMismatches,PspaResolveSkipped,PspaResolveSnapshots,PspaReuses,PspaTime,PspaWholeProgram,ResolveQueries
// Three calls of f in one state shape: 1 analysis, 3 calls, 0 failures, 2 reuses; no
// symbolic pointer in the state, so the plugin's own solver is never asked (0); no
// resolution client, and no symbolic address: 0 resolution queries (KLEE's own column);
// no call the past-sensitive analysis could not answer: 0 whole-program answers.
// CHECK: ,1,3,0,0,0,0,0,0,0,2,{{[0-9]+}},0,0{{$}}
#include "klee/klee.h"

int g;
void f(int *p) { *p += 1; }

int main(void) {
  for (int i = 0; i < 3; i++)
    f(&g);
  return g;
}
