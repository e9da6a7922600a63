// --skip-functions=auto learns from a skipped call's recoveries where its effects are
// read: inside the calls of another function, which it then skips with it (libosip: the
// URI's header parser, whose lists are read only inside osip_uri_free).
//   parse runs ~9,000 instructions a call, no fork, and adds into `acc`; only release reads
//   `acc`, inside its calls. release runs ~10,000 instructions and writes `sink`, which
//   main reads only when `show`.
//   `use` forks at the first iteration; DFS follows in[12] == 1 (no release) first: its 12
//   parse calls are never read (11 followed calls unread: the last one's watch ends with
//   the path), so parse is skipped from its 13th call on, the second path's first.
//   The second path (use, show false) runs release after each parse, which recovers the
//   skipped parse. Each recovery counts for parse's row as a followed call read inside a
//   call of release (the profile's reads inside later calls).
// Two runs of the same program, differing in when the ranking sees those recoveries:
// - TICKS=0: the profile is young (the first 64 rankings come at every change), so the
//   first recovery is ranked at once: release, with no followed call of its own yet, is
//   skipped with parse from its 3rd call on ("together with parse"). Neither stops:
//   skipping parse now saves what its unrecovered calls run, and release's recoveries on
//   the third path (show true reads `sink`) are about half of its skips, which still pays.
//   Without the recoveries in parse's row, release is chosen only after 12 unread calls of
//   its own, and parse stops first (8 recoveries in 8 skips).
// - TICKS=50: 50 calls of tick first use up the young profile's rankings, so the next
//   ranking waits for 64 calls; parse's 8th recovery comes before it, when its stop rule
//   finds 8 recoveries for 8 skips. Before stopping it the rule ranks at once: that skips
//   release, inside whose calls all 8 recoveries were read, and parse goes on, judged from
//   then on by its later skips only. Without that ranking, parse runs again for good.
//   KLEE alone: 3 paths; chopped the same 3, in both runs.
// RUN: %clang %s -o %t.bc
// RUN: %clang -DTICKS=50 %s -o %t50.bc
// RUN: rm -rf %t.base %t.auto %t50.auto
// RUN: %klee --search=dfs --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 3
// RUN: %klee --search=dfs --skip-functions=auto --output-dir=%t.auto %t.bc 2>&1 | %FileCheck %s --check-prefix=AUTO
// AUTO: --skip-functions=auto: parse is skipped from its call 13 on
// AUTO-NOT: runs again
// AUTO: --skip-functions=auto: release is skipped from its call 3 on: {{.*}} together with parse
// AUTO-NOT: runs again
// AUTO: KLEE: done: pspa chop auto: skipped = parse (from call 13), release (from call 3); skipped, then run again = none
// AUTO: KLEE: done: completed paths = 3
// RUN: %klee --search=dfs --skip-functions=auto --output-dir=%t50.auto %t50.bc 2>&1 | %FileCheck %s --check-prefix=LATE
// LATE: --skip-functions=auto: parse is skipped from its call 13 on
// LATE-NOT: runs again
// LATE: --skip-functions=auto: release is skipped from its call {{[0-9]+}} on: {{.*}} together with parse
// LATE-NEXT: --skip-functions=auto: parse goes on: 8 of its 8 recoveries were read inside calls of release, skipped now
// LATE-NOT: runs again
// LATE: KLEE: done: completed paths = 3
#include "klee/klee.h"

#ifndef TICKS
#define TICKS 0
#endif

int acc[2];
int sink;
int counter;

void parse(int b) {
  for (int i = 0; i < 600; i++)
    acc[i & 1] += b;
}

void release(void) {
  int h = 0;
  for (int i = 0; i < 600; i++)
    h += acc[i & 1] ^ i;
  sink = h;
}

void tick(int k) { counter += k; }

int main(void) {
  int in[16];
  klee_make_symbolic(in, sizeof in, "in");
  for (int k = 0; k < TICKS; k++)
    tick(k);
  int use = in[12] != 1;
  int show = in[13] != 1;
  int total = 0;
  for (int i = 0; i < 12; i++) {
    parse(in[i]);
    if (use) {
      release();
      if (show)
        total += sink;
    }
  }
  return total & 1;
}
