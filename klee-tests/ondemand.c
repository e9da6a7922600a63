// The on-demand projection (src/session.rs): a call reads only the objects whose contents
// its analysis reads, and gives the sets of the eager projection (--pspa-eager-projection,
// and the eager replay of each dumped snapshot, which holds the whole projection).
// RUN: %clang %s -o %t.bc
// tail_of is writeless: without --pspa-check its calls would need no analysis (--pspa-writeless),
// so the runs that exercise budgets without a client turn that off.
// RUN: rm -rf %t.klee %t.snaps %t.eager %t.snaps-eager %t.budget
// RUN: %klee --pspa-check --pspa-analyze=tail_of,set_head --pspa-stats --pspa-dump-snapshots=%t.snaps --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa calls analysed = 2 (pspa)
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa projection: objects met = 33, read = 16, rounds = 3
// CHECK: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// A work budget of one element stops both solves: both calls get their function's
// whole-program answer (--pspa-fallback's default), which the check finds sound; with
// --pspa-fallback=unknown both fail, conservatively.
// RUN: %klee --pspa-check --pspa-analyze=tail_of,set_head --pspa-max-work=1 --output-dir=%t.budget %t.bc 2>&1 | %FileCheck %s --check-prefix=BUDGET
// BUDGET: KLEE: done: pspa failures = 0
// BUDGET: KLEE: done: pspa whole-program answers = 2 (calls the past-sensitive analysis could not answer; 2 over the work budget; whole-program analysis {{[0-9.]+}} s, functions answered = 2)
// BUDGET: KLEE: done: pspa check: calls checked = 2, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// With no client, nothing asks those answers anything: the whole-program analysis, which
// makes them when first asked, never runs.
// RUN: rm -rf %t.noclient
// RUN: %klee --pspa-writeless=false --pspa-analyze=tail_of,set_head --pspa-max-work=1 --output-dir=%t.noclient %t.bc 2>&1 | %FileCheck %s --check-prefix=NOCLIENT
// NOCLIENT: KLEE: done: pspa failures = 0
// NOCLIENT: KLEE: done: pspa whole-program answers = 2 (calls the past-sensitive analysis could not answer; 2 over the work budget; whole-program analysis not run: no client asked these answers)
// RUN: rm -rf %t.budget
// RUN: %klee --pspa-writeless=false --pspa-analyze=tail_of,set_head --pspa-max-work=1 --pspa-fallback=unknown --output-dir=%t.budget %t.bc 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: KLEE: done: pspa failures = 2 (2 over the work budget)
//
// tail_of walks `next` through the 16 nodes: it reads them all, and none of their 16
// buffers (`data` is never loaded); the buffers are met, opaque. Rounds: the head alone
// (opaque: its `next` is read), then every node reachable through `next`, whose answer
// reads no opaque object: 2; set_head: 1.
// RUN: %python %checks projected %t.klee/pspa-calls.csv tail_of 32
// RUN: %python %checks read %t.klee/pspa-calls.csv tail_of 16
// set_head stores an int through its argument: one object met, none read.
// RUN: %python %checks projected %t.klee/pspa-calls.csv set_head 1
// RUN: %python %checks read %t.klee/pspa-calls.csv set_head 0
// RUN: %python %checks replay %t.snaps %pspa
// RUN: %klee --pspa-check --pspa-analyze=tail_of,set_head --pspa-eager-projection --pspa-dump-snapshots=%t.snaps-eager --output-dir=%t.eager %t.bc 2>&1 | %FileCheck %s --check-prefix=EAGER
// EAGER: KLEE: done: pspa failures = 0
// EAGER: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %python %checks read %t.eager/pspa-calls.csv tail_of 32
// RUN: %python %checks same %t.snaps %t.snaps-eager
#include "klee/klee.h"
#include <stdlib.h>

struct node {
  struct node *next;
  char *data;
  int val;
};

struct node *tail_of(struct node *n) {
  while (n->next)
    n = n->next;
  return n;
}

void set_head(struct node *n, int v) { n->val = v; }

int main(void) {
  struct node *l = 0;
  for (int i = 0; i < 16; i++) {
    struct node *n = malloc(sizeof *n);
    n->data = malloc(4);
    n->next = l;
    n->val = i;
    l = n;
  }
  int v;
  klee_make_symbolic(&v, sizeof v, "v");
  set_head(l, v);
  return tail_of(l)->val;
}
