// --skip-functions=auto skips again a unit it stopped when the calls its effects were
// read inside are skipped now (libosip: the URI's header parser, stopped for recoveries
// read inside osip_uri_free calls, which the run chose only later).
//   parse runs ~9,000 instructions a call, no fork, and adds into `acc`; only release reads
//   `acc` (inside its calls). release runs ~10,000 instructions and writes `sink`, which
//   main reads only when `show`.
//   `use` forks at the first iteration; DFS follows in[12] == 1 (no release) first: its 12
//   parse calls are never read (11 followed calls unread: the last one's watch ends with
//   the path), so parse is skipped from its 13th call on, the second path's first.
//   The second path (use, show false) runs release after each parse: each skipped parse is
//   recovered inside release. After 8 skips, 8 recoveries: parse runs again; the path's
//   last 3 parse calls run.
//   release's own 12 calls on that path are never read (show false): release is skipped
//   from its 13th call on, chosen at the third path's first parse call (which runs: the
//   run's 12 + 3 + 1 = 16th followed, after 8 skips: call 24). parse, all of whose 8
//   recoveries were read inside release, is skipped again from its call 25 on, judged from
//   then on by its new skips only.
//   The third path (show true) reads `sink` after every release: release's skips are
//   recovered (8 in 8: it runs again), and parse's are recovered inside the release calls
//   that run again (8 in 8 since it was skipped again: it runs again).
//   KLEE alone: 3 paths; chopped the same 3.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.auto
// RUN: %klee --search=dfs --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 3
// RUN: %klee --search=dfs --skip-functions=auto --output-dir=%t.auto %t.bc 2>&1 | %FileCheck %s --check-prefix=AUTO
// AUTO: --skip-functions=auto: parse is skipped from its call 13 on
// AUTO: --skip-functions=auto: parse runs again: 8 recoveries for its 8 skipped calls
// AUTO: --skip-functions=auto: release is skipped from its call 13 on
// AUTO: --skip-functions=auto: parse is skipped again from its call 25 on: 8 of its 8 recoveries were read inside calls of release, skipped now
// AUTO: --skip-functions=auto: release runs again: 8 recoveries for its 8 skipped calls
// AUTO: --skip-functions=auto: parse runs again: 8 recoveries for its 8 skipped calls since it was skipped again
// AUTO: KLEE: done: recovery states = 24
// AUTO: KLEE: done: completed paths = 3
// RUN: %FileCheck %s --check-prefix=CSV --input-file=%t.auto/chop.csv
// CSV: parse,16,16,{{.*}}"every call: skipped, then run again: 8 recoveries for its 8 skipped calls since it was skipped again"
#include "klee/klee.h"

int acc[2];
int sink;

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

int main(void) {
  int in[16];
  klee_make_symbolic(in, sizeof in, "in");
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
