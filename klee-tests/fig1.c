// The paper's Figure 1 under KLEE with symbolic k1 and k2.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee %t.snaps %t.spa
// RUN: %klee --pspa-check --pspa-analyze=table_insert,table_lookup --pspa-dump-snapshots=%t.snaps --libc=uclibc --search=dfs --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = {{[1-9][0-9]*}} (pspa)
// CHECK: KLEE: done: pspa analyses = {{[0-9]+}}, reused = {{[1-9][0-9]*}}
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// CHECK: KLEE: done: completed paths = {{[1-9]}}
//
// At table_insert(t1, k1, "foo") the mod-set has one bucket array (t1's) and only t1's
// elements; replaying every dumped snapshot with `pspa modref` gives KLEE's sets.
// RUN: %python %checks fig1 %t.snaps %t.klee/pspa-calls.csv %pspa
//
// SPA vs PSPA (uniqueness stripped, Table 1): smaller on average for table_insert.
// RUN: %klee --pspa-check --pspa-analyze=table_insert,table_lookup --pspa-mode=spa --libc=uclibc --search=dfs --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA: KLEE: done: pspa calls analysed = {{[1-9][0-9]*}} (spa)
// SPA: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %python %checks smaller %t.spa/pspa-calls.csv %t.klee/pspa-calls.csv table_insert
#include "klee/klee.h"
#include <stdlib.h>
#include <string.h>

#define N 20
#include "../examples/fig1-table.h"

int main(void) {
  table_t *t1 = table_alloc(N);
  table_t *t2 = table_alloc(N);
  for (unsigned i = 0; i < N; i++) {
    table_t *t = i % 2 == 0 ? t1 : t2;
    table_insert(t, i, "...");
  }
  unsigned k1, k2;
  klee_make_symbolic(&k1, sizeof k1, "k1");
  klee_make_symbolic(&k2, sizeof k2, "k2");
  table_insert(t1, k1, "foo"); // PSPA-CALL
  elem_t *e = table_lookup(t2, k2);
  return e != 0;
}
