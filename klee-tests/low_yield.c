// Reuse that never pays is tried at sampled calls only (summaries.rs and last_answers.h,
// `Yield`): depth(n) climbs a list from its newest cell, and each call starts from a new
// cell, so no call's state is an earlier one's (another argument for the last answers,
// another chain length for the summary cache). After 64 calls tried without a hit, one
// call in 8 is recorded for the last answers and looks up the summary cache.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.noreuse
// RUN: %klee --pspa-check --pspa-stats --pspa-analyze=depth --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// 128 calls, none found among the last answers: 64 + (128 - 64) / 8 = 72 recorded, 56 not.
// The summary cache is asked once per solve round (the first call takes more than one),
// so its count is only said to be some.
// CHECK: KLEE: done: pspa calls analysed = 128 (pspa)
// CHECK: KLEE: done: pspa analyses = 128, reused = 0
// CHECK: KLEE: done: pspa last answers: 0 calls answered without reading {{.*}}calls not kept, their function's answers almost never given again = 56)
// CHECK: KLEE: done: pspa reuse misses: {{.*}}; calls not looked up, their function's lookups almost never hit = {{[1-9][0-9]*}}
// Every answer is still the call's own: every access inside every call is in its sets.
// CHECK: KLEE: done: pspa check: calls checked = 128, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// Without reuse nothing is tried, so nothing is skipped.
// RUN: %klee --pspa-stats --pspa-no-reuse --pspa-analyze=depth --output-dir=%t.noreuse %t.bc 2>&1 | %FileCheck %s --check-prefix=NOREUSE
// NOREUSE: KLEE: done: pspa last answers: 0 calls answered without reading {{.*}} = 0)
// NOREUSE: KLEE: done: pspa reuse misses: {{.*}}; calls not looked up, their function's lookups almost never hit = 0
#include <stdlib.h>

struct cell {
  struct cell *next;
  int v;
};

int depth(struct cell *c) {
  int d = 0;
  for (; c; c = c->next)
    d += c->v;
  return d;
}

int main(void) {
  struct cell *head = 0;
  int total = 0;
  for (int i = 0; i < 128; i++) {
    struct cell *c = malloc(sizeof *c);
    c->next = head;
    c->v = 1;
    head = c;
    total += depth(head);
  }
  return total == 128 * 129 / 2 ? 0 : 1;
}
