/* The paper's Figure 1 for the past-sensitive soundness test: snapshots at the calls of
 * main (tests/pspa.rs checks every byte they write against the PSPA mod-set). Types are
 * given to the snapshots with OBS_TYPE, as KLEE infers them from the first cast. */
#include "../harness/observe.h"
#include <stdio.h>

#define N 20
#include "../../examples/fig1-table.h"

int main(void) {
  table_t *t1 = table_alloc(N);
  table_t *t2 = table_alloc(N);
  OBS_LOCAL(t1);
  OBS_LOCAL(t2);
  for (unsigned i = 0; i < N; i++) {
    table_t *t = i % 2 == 0 ? t1 : t2;
    table_insert(t, i, "...");
  }
  unsigned k1 = 3, k2 = 5;
  OBS_PSPA(table_insert, table_insert(t1, k1, "foo"), (uintptr_t)t1, k1, (uintptr_t)"foo");
  elem_t *e;
  OBS_PSPA(table_lookup, e = table_lookup(t2, k2), (uintptr_t)t2, k2);
  OBS_PSPA(table_insert, table_insert(t2, k2 + 20, "bar"), (uintptr_t)t2, k2 + 20, (uintptr_t)"bar");
  return e == 0;
}


