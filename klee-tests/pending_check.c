// --pspa-check of a call analysed while skipped calls are pending (issue: right answers).
// list_push allocates a node and links it at the head; list_remove unlinks the head. Both
// are skipped; list_find is analysed (and checked) at its call, while they are pending:
// in KLEE's state the list is then empty (head == 0). list_find loads head, which the
// pending calls may write: they are recovered, the nodes they allocate come into the path
// (objects newer than list_find's analysis: their static site, heap:list_push), and
// list_find walks them. An analysis of the state alone says head points nowhere and
// list_find reads nothing but head: the walk's reads are outside its ref set. Joined with
// the pending calls' post-states (head and next may point to list_push's node site), the
// reads are in it: 0 outside.
// The values: keys 1, 2, 3 pushed, the head (3) removed: list_find(2) finds 2.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.spa %t.base
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-NOT: ASSERTION FAIL
// BASE: KLEE: done: completed paths = 1
// RUN: %klee --pspa-analyze=list_find --pspa-check --skip-functions=list_remove,list_push --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA-NOT: ASSERTION FAIL
// PSPA: KLEE: done: pspa analyses joined with pending skips' post-states = {{[1-9][0-9]*}} (not joined for want of one = 0)
// PSPA: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// PSPA: KLEE: done: completed paths = 1
// The same counters, typed, in pspa-stats.json.
// RUN: %python %checks stats %t.pspa check.calls_checked=2 check.outside=0 analysis.join_failures=0 mode=pspa
// RUN: %klee --pspa-analyze=list_find --pspa-check --skip-functions=list_remove,list_push --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA-NOT: ASSERTION FAIL
// SPA: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include "klee/klee.h"
#include <stdlib.h>

struct node {
  int key;
  struct node *next;
};
struct node *head;

void list_push(int key) {
  struct node *n = malloc(sizeof *n);
  n->key = key;
  n->next = head;
  head = n;
}

void list_remove(void) {
  struct node *n = head;
  head = n->next;
  free(n);
}

struct node *list_find(int key) {
  for (struct node *n = head; n; n = n->next)
    if (n->key == key)
      return n;
  return 0;
}

int main(void) {
  list_push(1);
  list_push(2);
  list_push(3);
  list_remove();
  klee_assert(list_find(2) != 0);
  klee_assert(list_find(3) == 0);
  return 0;
}
