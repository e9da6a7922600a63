/* The table of the paper's Figure 1, shared by examples/fig1.c and the tests. Lines are
 * fixed (labels such as heap:table_insert:32 name them): add nothing above the code. */
#ifndef PSPA_FIG1_TABLE_H
#define PSPA_FIG1_TABLE_H
#include <stdlib.h>
#include <string.h>
#ifndef OBS_TYPE /* the observation harness names types for snapshots; a no-op elsewhere */
#define OBS_TYPE(p, t) ((void)0)
#endif
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
#endif
