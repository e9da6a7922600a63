/* The motivating example of the paper (Figure 1), made compilable: the `while (...)` of
 * run() reads keys from stdin, and k1/k2 (symbolic under KLEE) come from the arguments.
 * The table code is in fig1-table.h (its line numbers are those of the labels). */
#include <stdio.h>

#define N 20
#include "fig1-table.h"

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
