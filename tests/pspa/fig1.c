/* The paper's Figure 1 for the past-sensitive soundness test: snapshots at the calls of
 * main (tests/pspa.rs checks every byte they write against the PSPA mod-set). Types are
 * given to the snapshots with OBS_TYPE, as KLEE infers them from the first cast. */
#include "../harness/observe.h"
#include <stdio.h>

#define N 20
typedef struct elem_t { unsigned k; char *v; struct elem_t *next; } elem_t;
typedef struct { unsigned n; elem_t **array; } table_t;

table_t *table_alloc(unsigned n) {
  table_t *t = malloc(sizeof(table_t));
  t->array = calloc(sizeof(elem_t *), n);
  t->n = n; OBS_TYPE(t, "struct.table_t"); OBS_TYPE(t->array, "%struct.elem_t*");
  return t;
}

elem_t *table_lookup(table_t *t, unsigned k) {
  unsigned int hash = k % t->n;
  elem_t *e = t->array[hash];
  while (e) {
    if (e->k == k) break;
    e = e->next;
  }
  return e;
}

void table_insert(table_t *t, unsigned k, char *v) {
  elem_t *e = table_lookup(t, k);
  if (!e) {
    e = malloc(sizeof(elem_t));
    e->v = malloc(10);
    e->k = k; OBS_TYPE(e, "struct.elem_t");
    int hash = k % t->n;
    e->next = t->array[hash];
    t->array[hash] = e;
  }
  strcpy(e->v, v);
}

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


