/* Calls that read a little of a large state: the on-demand projection (session.rs) must
 * give the eager projection's sets while reading only what each call reads. A tree of 31
 * nodes (parent, children and a callback per node), plus a global table reached only
 * through a function pointer stored in a node:
 *   root_of(n)      walks `up` from a leaf: reads the 5 ancestors, not the 26 others;
 *   set_hits(n, v)  writes a field and reads no pointer: reads nothing;
 *   clone_into(d,s) memcpy of a whole node: reads s (its pointers flow into d);
 *   fire(n)         calls n->cb, which writes the global `log_table` through a pointer
 *                   in it: reads n and the table. */
#include "../harness/observe.h"
#include <string.h>

struct node {
  struct node *up, *left, *right;
  int hits;
  void (*cb)(struct node *);
};

struct entry { struct node *last; int count; };
struct entry *log_table[2];
static struct entry log_slot;

void record(struct node *n) { log_table[0]->last = n; log_table[0]->count++; }

struct node *build(struct node *up, int depth) {
  struct node *n = malloc(sizeof *n);
  OBS_TYPE(n, "struct.node");
  n->up = up;
  n->hits = 0;
  n->cb = record;
  n->left = depth ? build(n, depth - 1) : 0;
  n->right = depth ? build(n, depth - 1) : 0;
  return n;
}

struct node *root_of(struct node *n) {
  while (n->up)
    n = n->up;
  return n;
}

void set_hits(struct node *n, int v) { n->hits = v; }

void clone_into(struct node *d, struct node *s) { memcpy(d, s, sizeof *d); }

void fire(struct node *n) { n->cb(n); }

int main(void) {
  log_table[0] = &log_slot;
  OBS_GLOBAL(log_table);
  OBS_GLOBAL(log_slot);
  OBS_FUNC(record);
  struct node *t = build(0, 4);
  struct node *leaf = t->left->right->left->right;
  struct node *spare = malloc(sizeof *spare);
  OBS_TYPE(spare, "struct.node");
  memset(spare, 0, sizeof *spare);
  OBS_LOCAL(t);
  OBS_LOCAL(leaf);
  OBS_LOCAL(spare);
  struct node *r;
  OBS_PSPA(root_of, r = root_of(leaf), (uintptr_t)leaf);
  OBS_PSPA(set_hits, set_hits(leaf, 3), (uintptr_t)leaf, 3);
  OBS_PSPA(clone_into, clone_into(spare, leaf->up), (uintptr_t)spare, (uintptr_t)leaf->up);
  OBS_PSPA(fire, fire(leaf), (uintptr_t)leaf);
  return r == t ? 0 : 1;
}
