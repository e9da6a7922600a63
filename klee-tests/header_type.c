// An object typed by a cast past its allocator's header: SQLite's sqlite3MemMalloc keeps
// the size in its first 8 bytes and returns base + 8, which the caller casts to its
// struct. The base's own cast is the header's (an i64): typed by it, as the plugin did,
// the pair was one field and set_a's write through p->a a write of b's target too.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.snaps
// RUN: %klee --pspa-check --pspa-analyze=set_a --pspa-dump-snapshots=%t.snaps --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 1 (pspa)
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa check: calls checked = 1, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// set_a writes the int a points to, reads the pair's a field (field 1: the header is 0).
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv set_a mod 45 heap:main:42.0 --not heap:main:43.0
// RUN: %python %checks labels %t.snaps %t.klee/pspa-calls.csv set_a ref 45 heap:hmalloc:33.1 --not heap:hmalloc:33.2 heap:hmalloc:33.*
// The snapshot says where the type starts (type_offset), and its replay answers the same.
// RUN: grep -q '"type_offset": 8' %t.snaps/call-1.json
// RUN: %python %checks replay %t.snaps %pspa
// Chopped, with the check and resolution validated: set_a skipped, main's later read of
// *p->b is outside its mod set (a's int only), so no recovery; one field for the pair
// would put b's int in it and recover.
// RUN: rm -rf %t.chop
// RUN: %klee --skip-functions=set_a --pspa-resolve --pspa-resolve-snapshots=all --pspa-resolve-validate --pspa-check --pspa-analyze=set_a --output-dir=%t.chop %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP: KLEE: done: pspa check: calls checked = 1, accesses = 1, outside mod/ref = 0
// CHOP: mismatches = 0
// CHOP: KLEE: done: recovery states = 0
#include <stdlib.h>

struct pair {
  int *a;
  int *b;
};

void *hmalloc(unsigned long n) {
  long long *p = malloc(n + 8);
  p[0] = n;
  return p + 1;
}

void set_a(struct pair *p) { *p->a = 1; }

int main(void) {
  struct pair *p = hmalloc(sizeof *p);
  p->a = malloc(sizeof(int));
  p->b = malloc(sizeof(int));
  *p->b = 0;
  set_a(p);
  return *p->b;
}
