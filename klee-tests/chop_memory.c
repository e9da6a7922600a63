// Chopping under KLEE's memory cap (--max-memory). A snapshot keeps the objects of the
// state at a skipped call alive while the path goes on writing its own copies, and KLEE
// frees memory only by ending the states it knows of: snapshots could push a run past the
// cap until the kernel killed it. So while the process's heap is over the cap, a skipped
// function's calls run as KLEE alone runs them, and no snapshot is taken.
// `tally` forks 2 ways on its argument and writes only `counts`, which nothing reads.
//   KLEE alone: 3 calls, 2 x 2 x 2 = 8 paths. The assertion's `k[0] == 5` forks the 4 of
//   them where k[0] < 10, and `k[2] == 3` the 2 of those 4 where k[2] < 10 too: 8 + 4 + 2
//   = 14 paths, the 2 last failing (12 completed, 2 partially).
//   --skip-functions=tally under no cap: every call skipped (3 snapshots), no recovery
//   (nothing reads `counts`): 1 path, which the assertion splits into 3, 1 failing.
//   --max-memory=1: 1 MB is exceeded from the first call on (the module alone is more), so
//   nothing is skipped: 0 snapshots, the 1 + 2 + 4 = 7 calls run, KLEE alone's 14 paths
//   and the same error. (KLEE's own check runs every 65,536 instructions, which this
//   program never reaches: KLEE itself ends no state here.)
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.chop %t.cap
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 12
// BASE: KLEE: done: partially completed paths = 2
// RUN: %klee --skip-functions=tally --output-dir=%t.chop %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP: KLEE: done: recovery states = 0
// CHOP: KLEE: done: created snapshots = 3
// CHOP: calls run over --max-memory (no snapshot) = 0
// CHOP: KLEE: done: completed paths = 2
// CHOP: KLEE: done: partially completed paths = 1
// RUN: %klee --skip-functions=tally --max-memory=1 --output-dir=%t.cap %t.bc 2>&1 | %FileCheck %s --check-prefix=CAP
// CAP: pspa chop: over --max-memory: skipped functions' calls run (no snapshot)
// CAP-NOT: pspa chop: over --max-memory
// CAP: KLEE: done: created snapshots = 0
// CAP: calls run over --max-memory (no snapshot) = 7
// CAP: KLEE: done: completed paths = 12
// CAP: KLEE: done: partially completed paths = 2
// RUN: %python %checks same-errors %t.chop %t.base
// RUN: %python %checks same-errors %t.cap %t.base
// RUN: %python %checks stats %t.cap chop.memory_cap_calls=7
#include "klee/klee.h"

int counts[2];

void tally(int k) {
  if (k < 10)
    counts[0]++;
  else
    counts[1]++;
}

int main(void) {
  int k[3];
  klee_make_symbolic(k, sizeof k, "k");
  for (int i = 0; i < 3; i++)
    tally(k[i]);
  klee_assert(!(k[0] == 5 && k[2] == 3));
  return 0;
}
