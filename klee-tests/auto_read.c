// --skip-functions=auto declines a function whose effects are read right after every call,
// and stops skipping one whose skips turn out to be recovered.
//   decode forks 3 ways and writes the message main reads at once: every followed call is
//   read (the profile's decode row: read = watched), so it is never skipped.
//   note does not fork but runs ~4,500 instructions a call (more than a skip costs, 2,000)
//   and counts into `seen`, which the paths with in[7] != 42 read right after each call.
//   Under DFS the first path takes the false side of `if (report)` first (in[7] == 42) and
//   never reads `seen`: 3 followed calls unread, so note is skipped from its 5th call on.
//   The other paths read `seen` after each skipped call and recover it: after 8 skips, 5
//   recoveries; skipping still saves ~4,500 instructions for each call not recovered, but
//   at 5 in 8 that no longer pays each skip's 2,000, and note runs again for good.
//   KLEE alone: 3^3 decode paths x 2 (report) = 54 paths; chopped, the same 54.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.auto
// RUN: %klee --search=dfs --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: KLEE: done: completed paths = 54
// RUN: %klee --search=dfs --skip-functions=auto --output-dir=%t.auto %t.bc 2>&1 | %FileCheck %s --check-prefix=AUTO
// AUTO: --skip-functions=auto: note is skipped from its call 5 on
// AUTO: --skip-functions=auto: note runs again: 5 recoveries for its 8 skipped calls
// AUTO: KLEE: done: recovery states = 5
// AUTO: KLEE: done: pspa chop auto: skipped = none; skipped, then run again = note (5 recoveries for its 8 skipped calls)
// AUTO: KLEE: done: completed paths = 54
// RUN: %python %checks profile %t.auto/chop-profile.csv decode:71 'read>0' unread=0
// RUN: %python %checks profile %t.auto/chop-profile.csv note:76 forks=0 'read>0' 'unread>0'
// RUN: %FileCheck %s --check-prefix=CSV --input-file=%t.auto/chop.csv
// CSV: note,8,5,{{.*}}"every call: skipped, then run again: 5 recoveries for its 8 skipped calls"
// RUN: %pspa skips %t.auto/chop-profile.csv --all | %FileCheck %s --check-prefix=RANK
// RANK: decode:71 candidate {{.*}} 100% effects read after {{[0-9]+}} of {{[0-9]+}} followed calls: most skips would be recovered
// RANK: note:76 never {{.*}} skipping it stopped
// RANK: nothing to skip
#include "klee/klee.h"

struct msg { int kind, len; };
int seen[4];
int table[64];

// Forks 3 ways; what it writes (the message) main reads right after every call.
void decode(int b, struct msg *m) {
  if (b < 10)
    m->kind = 1;
  else if (b < 100)
    m->kind = 2;
  else
    m->kind = 3;
  m->len = 2;
}

// No fork, about 3,000 instructions a call; counts into `seen`, which only the paths that
// take `report` read (right after each call).
void note(int k) {
  for (int i = 0; i < 300; i++)
    seen[i & 1] += k;
}

int digest(void) {
  int h = 0;
  for (int round = 0; round < 40; round++)
    for (int i = 0; i < 64; i++)
      h = h * 31 + table[i] + round;
  return h;
}

int main(void) {
  int in[8];
  klee_make_symbolic(in, sizeof in, "in");
  for (int i = 0; i < 64; i++)
    table[i] = i;
  int total = 0;
  for (int i = 0; i < 3; i++) {
    struct msg m;
    decode(in[i], &m);
    total += m.kind;
  }
  int report = in[7] != 42;
  for (int i = 3; i < 7; i++) {
    note(in[i]);
    if (report)
      total += seen[0] + seen[1];
  }
  return (digest() + total) & 1;
}
