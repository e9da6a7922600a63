// An object with symbolic words is kept in the read cache too: its concrete words are
// given from it, its symbolic words are read again each time, since their targets depend
// on the path's constraints (cpp-shim/src/state_view.h, ReadCache::Entry::symbolic).
// walk(l, k)'s analysis reads every node of the list from l (a, b, c).
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee
// RUN: %klee --pspa-check --pspa-stats --pspa-no-last-answers --pspa-analyze=walk --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// #1 reads a, b, c; b's v is symbolic input in a slot typed as a long (data: `symbolic
// data`). #2: nothing written since: all three from the cache, b's symbolic word read
// again (symbolic data 2 in all), 1 entry given with symbolic words; --pspa-check reads
// the three again and finds the same words and the same symbolic offsets.
// CHECK: KLEE: done: pspa calls analysed = 2 (pspa)
// CHECK: KLEE: done: pspa slots: {{.*}}symbolic data = 2,{{.*}}; objects given from the read cache, unread = 3, of them with other bound objects than last = 0, with symbolic words read again = 1 (kept: 3 objects, {{[0-9]+}} words) (each read too under --pspa-check: 3 compared, 0 mismatches)
// CHECK: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include <klee/klee.h>
#include "read_cache.h"

int main(void) {
  struct node *c = make(0, 3), *b = make(c, 2), *a = make(b, 1);
  long x;
  klee_make_symbolic(&x, sizeof x, "v");
  b->v = x;
  volatile long t = walk(a, 3);
  t += walk(a, 3);
  return 0;
}
