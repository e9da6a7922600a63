// --skip-functions=auto skips a forking function whose effects nothing reads; and the
// profile (--pspa-chop-profile) with `pspa skips` proposes it. `audit` forks 4 ways on a
// symbolic kind and writes only the_log, which no code outside audit reads; every path
// then runs `digest` (about 44,000 instructions of concrete work).
//   KLEE alone: audit(kinds[i]) runs on 4^i paths: 1 + 4 + 16 + 64 = 85 calls, each 3
//   forks (255), 256 paths through the audits, each calling digest (its result is used:
//   256 calls, all with the result used); the 64 paths whose kinds[2] took 1..99 split at
//   kinds[2] == 7 and 16 of them fail the assertion: 320 completed paths, 16 failures.
//   --skip-functions=auto, DFS: the first path runs the four audits (the first is not
//   analysed: audit had not forked yet; the three others are, and their mod set, the
//   log, is watched) and ends without reading the log: 3 followed calls, none read, and
//   the paths forked inside audit ran ~11,000 instructions each. The ranking proposes
//   audit (every call: it has one call site), so from its 5th call on (the 12 paths left waiting at the first path's forks)
//   its calls are skipped: fewer paths, no recovery, and the same assertion.
//   The profile of a whole run (the default searcher) has audit's 85 calls, 255 forks and
//   no read of what they wrote; digest's result is used at every call, so it is never
//   proposed.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.auto %t.prof
// RUN: %klee --search=dfs --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: ASSERTION FAIL: !(kinds[2] == 7 && kinds[3] == 9)
// BASE: KLEE: done: completed paths = 320
// BASE: KLEE: done: partially completed paths = 16
// RUN: %klee --search=dfs --skip-functions=auto --output-dir=%t.auto %t.bc 2>&1 | %FileCheck %s --check-prefix=AUTO
// AUTO: --skip-functions=auto: audit is skipped from its call 5 on: every call: 4 calls, 12 forks, {{.*}} effects read after 0 of 3 followed calls
// AUTO: ASSERTION FAIL: !(kinds[2] == 7 && kinds[3] == 9)
// AUTO: KLEE: done: recovery states = 0
// AUTO: KLEE: done: pspa chop auto: skipped = audit (from call 5); skipped, then run again = none
// RUN: %python %checks same-errors %t.auto %t.base
// RUN: %python %checks fewer-instructions %t.auto %t.base
// RUN: %python %checks stats %t.auto "chop.auto.skipped=['audit']"
// RUN: %klee --pspa-chop-profile --output-dir=%t.prof %t.bc 2>&1 | %FileCheck %s --check-prefix=PROF
// PROF: KLEE: done: pspa chop profile: calls = 341, {{.*}} proposed at the end (pspa skips chop-profile.csv) = --skip-functions=audit
// PROF: KLEE: done: completed paths = 320
// RUN: %python %checks profile %t.prof/chop-profile.csv audit:74 calls=85 forks=255 result_used=0 read=0 'unread>0' 'path_instructions>1000000'
// RUN: %python %checks profile %t.prof/chop-profile.csv digest:75 calls=256 result_used=256 forks=0
// RUN: %pspa skips %t.prof/chop-profile.csv --all | %FileCheck %s --check-prefix=RANK
// RANK: 1 audit:74 skip {{.*}} 0% every call: 85 calls, 255 forks
// RANK: 2 digest:75 never {{.*}} its result is used after 256 of 256 calls
// RANK: --skip-functions=audit
#include "klee/klee.h"
#include <stdlib.h>

struct log { int counts[4]; } the_log;
int table[64];

// Forks 4 ways on a symbolic kind; writes only the log, which nothing reads.
void audit(int kind) {
  if (kind < 0)
    the_log.counts[0]++;
  else if (kind == 0)
    the_log.counts[1]++;
  else if (kind < 100)
    the_log.counts[2]++;
  else
    the_log.counts[3]++;
}

// Concrete work every path does after the audits.
int digest(void) {
  int h = 0;
  for (int round = 0; round < 40; round++)
    for (int i = 0; i < 64; i++)
      h = h * 31 + table[i] + round;
  return h;
}

int main(void) {
  int kinds[4];
  klee_make_symbolic(kinds, sizeof kinds, "kinds");
  for (int i = 0; i < 64; i++)
    table[i] = i;
  for (int i = 0; i < 4; i++)
    audit(kinds[i]);
  int h = digest();
  if (kinds[2] == 7)
    klee_assert(!(kinds[2] == 7 && kinds[3] == 9));
  return h & 1;
}
