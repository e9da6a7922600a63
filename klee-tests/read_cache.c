// An object read again with the same contents (its write stamp), each of its words still
// having the target it had (an object word's object still bound, an unresolved word still
// no object's), gives the words it gave, unread (cpp-shim/src/state_view.h, ReadCache).
// walk(l, k) visits at most k nodes; its analysis is flow-insensitive, so it reads every
// node of the list from l (a, b, c), whatever k.
// Last answers are off, so that every call reads the state.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.off
// RUN: %klee --pspa-check --pspa-stats --pspa-no-last-answers --pspa-analyze=walk --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// #1 reads a, b, c and keeps them. #2: nothing written, allocated or freed since: all three
// from the cache. #3: b written (its stamp moved): a and c from the cache, b read. #4: d
// allocated, so other objects are bound (the fingerprint moved), but none that a, b or c
// point to went: all three from the cache, found to hold with other bound objects. #5: c
// freed: a (pointing to b, still bound) from the cache, again with other bound objects; b
// read (its word pointed to c; now it dangles: no target), c not met.
// 3 + 2 + 3 + 1 = 9, 3 + 1 = 4 of them with other bound objects; --pspa-check reads each
// of them too and finds the same words.
// CHECK: KLEE: done: pspa calls analysed = 5 (pspa)
// CHECK: KLEE: done: pspa slots: {{.*}}; objects given from the read cache, unread = 9, of them with other bound objects than last = 4, with symbolic words read again = 0 (kept: 3 objects, {{[0-9]+}} words) (each read too under --pspa-check: 9 compared, 0 mismatches)
// CHECK: KLEE: done: pspa check: calls checked = 5, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// Off, every object is read.
// RUN: %klee --pspa-stats --pspa-no-read-cache --pspa-no-last-answers --pspa-analyze=walk --output-dir=%t.off %t.bc 2>&1 | %FileCheck %s --check-prefix=OFF
// OFF: KLEE: done: pspa slots: {{.*}}; objects given from the read cache, unread = 0
#include "read_cache.h"

int main(void) {
  struct node *c = make(0, 3), *b = make(c, 2), *a = make(b, 1);
  long t = walk(a, 3);
  t += walk(a, 3);
  b->v = 7;
  t += walk(a, 3);
  struct node *d = make(0, 4);
  t += walk(a, 3);
  free(c);
  t += walk(a, 2);
  free(d);
  return t == 6 + 6 + 11 + 11 + 8 ? 0 : 1;
}
