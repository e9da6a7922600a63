/* The motivating example of the paper (Figure 1), made compilable: the `while (...)` of
 * run() reads keys from stdin, and k1/k2 (symbolic under KLEE) come from the arguments.
 * Line numbers differ from the paper's by the lines of this comment. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20
typedef struct elem_t { unsigned k; char *v; struct elem_t *next; } elem_t;
typedef struct { unsigned n; elem_t **array; } table_t;

table_t *table_alloc(unsigned n) {
  table_t *t = malloc(sizeof(table_t));
  t->array = calloc(sizeof(elem_t *), n);
  t->n = n;
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
    e->k = k;
    int hash = k % t->n;
    e->next = t->array[hash];
    t->array[hash] = e;
  }
  strcpy(e->v, v);
}

void run(table_t *t) {
  unsigned k;
  char v[10];
  while (scanf("%u %9s", &k, v) == 2) {
    table_insert(t, k, v);
  }
}

int main(int argc, char **argv) {
  table_t *t1 = table_alloc(N);
  table_t *t2 = table_alloc(N);
  for (unsigned i = 0; i < N; i++) {
    table_t *t = i % 2 == 0 ? t1 : t2;
    table_insert(t, i, "...");
  }
  unsigned k1 = argc, k2 = argc > 1 ? atoi(argv[1]) : 0; /* symbolic under KLEE */
  table_insert(t1, k1, "foo");
  elem_t *e = table_lookup(t2, k2);
  run(t2);
  return e != 0;
}
