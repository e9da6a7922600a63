// The list the read cache tests walk (read_cache.c, read_cache_symbolic.c).
#include <stdlib.h>

struct node {
  struct node *next;
  long v;
};

// Visits at most k nodes; its analysis is flow-insensitive, so it reads every node from l.
long walk(struct node *l, int k) {
  long s = 0;
  for (; l && k > 0; l = l->next, k--)
    s += l->v;
  return s;
}

struct node *make(struct node *next, long v) {
  struct node *n = malloc(sizeof *n);
  n->next = next;
  n->v = v;
  return n;
}
