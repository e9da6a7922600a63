/* A walk that compares a pointer it loads and never follows it, as libtasn1's
 * `_asn1_find_up` (`while (p->left && p->left->right == p) p = p->left;`).
 * climb(n) follows `up` from a leaf of a full binary tree of 31 nodes and loads each
 * ancestor's `right` only to compare it with n. What it reads: the leaf and its 4
 * ancestors (5 nodes). Following `right` too (it is a field a load read) would fetch the
 * right children of the ancestors and their right spines, which no load reads.
 * child_of(n, u) reads n->up only to compare it: it reads n, and a later call fetches n
 * ahead (one round), though it walks nowhere from it. */
#include "../harness/observe.h"

struct node {
  struct node *up, *left, *right;
  int hits;
};

struct node *build(struct node *up, int depth) {
  struct node *n = malloc(sizeof *n);
  OBS_TYPE(n, "struct.node");
  n->up = up;
  n->hits = 0;
  n->left = depth ? build(n, depth - 1) : 0;
  n->right = depth ? build(n, depth - 1) : 0;
  return n;
}

struct node *climb(struct node *n) {
  while (n->up && n->up->right == n)
    n = n->up;
  return n->up;
}

int child_of(struct node *n, struct node *u) { return n->up == u; }

int main(void) {
  struct node *t = build(0, 4);
  /* A right child of a right child: the loop climbs once at least. */
  struct node *leaf = t->left->right->left->right;
  struct node *other = t->right->left->right->right;
  OBS_LOCAL(t);
  OBS_LOCAL(leaf);
  OBS_LOCAL(other);
  struct node *r;
  OBS_PSPA(climb, r = climb(leaf), (uintptr_t)leaf);
  OBS_PSPA(climb, r = climb(other), (uintptr_t)other);
  int c;
  OBS_PSPA(child_of, c = child_of(leaf, t), (uintptr_t)leaf, (uintptr_t)t);
  OBS_PSPA(child_of, c += child_of(other, t), (uintptr_t)other, (uintptr_t)t);
  return r && !c ? 0 : 1;
}
