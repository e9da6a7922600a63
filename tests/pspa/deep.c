/* A deeper heap for the past-sensitive soundness and precision tests: two circular lists
 * built by the same code (same allocation sites), nodes holding an array of structs with
 * two pointer fields (squeezed to one element, fields kept apart), a callback field and an
 * untyped buffer. update(l1, ...) runs with l1's nodes holding on_a; l2's hold on_b. */
#include "../harness/observe.h"

struct item { char *name; char *value; };
struct node {
  struct node *next;
  struct item *items;      /* array of 3 items */
  int hits;
  void (*cb)(struct node *);
  char *scratch;           /* untyped buffer: field-insensitive */
};

int counter_b;

void on_a(struct node *n) { n->hits++; }
void on_b(struct node *n) { (void)n; counter_b++; }

struct node *make_list(int len, void (*cb)(struct node *), char *name) {
  struct node *first = 0, *last = 0;
  for (int i = 0; i < len; i++) {
    struct node *n = malloc(sizeof *n);
    n->items = malloc(3 * sizeof(struct item)); OBS_TYPE(n, "struct.node");
    OBS_TYPE(n->items, "struct.item");
    for (int k = 0; k < 3; k++) { n->items[k].name = name; n->items[k].value = 0; }
    n->scratch = malloc(8);
    n->cb = cb;
    n->hits = 0;
    n->next = first;
    if (!first) last = n;
    first = n;
  }
  last->next = first; /* a cycle in the heap */
  return first;
}

void update(struct node *l, int len, char *v) {
  struct node *n = l;
  for (int i = 0; i < len; i++, n = n->next) {
    n->cb(n);
    n->items[i % 3].value = v;
    n->scratch[i % 8] = 'x';
  }
}

int main(void) {
  static char name1[4] = "one", name2[4] = "two", v[4] = "new";
  OBS_GLOBAL(counter_b);
  OBS_FUNC(on_a);
  OBS_FUNC(on_b);
  struct node *l1 = make_list(3, on_a, name1);
  struct node *l2 = make_list(3, on_b, name2);
  OBS_LOCAL(l1);
  OBS_LOCAL(l2);
  OBS_PSPA(update, update(l1, 3, v), (uintptr_t)l1, 3, (uintptr_t)v);
  OBS_PSPA(update, update(l2, 2, v), (uintptr_t)l2, 2, (uintptr_t)v);
  return l1->hits + l2->hits;
}
