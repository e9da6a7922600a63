// A symbolic integer whose expression shares its subexpressions: y = y * y + y, twelve
// times, is a DAG of about a hundred nodes but a tree of 3^12 paths. It holds symbolic input
// only, no address, so the slot it is stored in (a long, not a pointer) is data: "symbolic
// data = 1", no solver query. The walk that tells this counted tree visits up to 256 and
// took anything larger for an address, which KLEE's solver then resolved: make's file
// timestamps were such, most of its reading time.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.klee
// RUN: %klee --pspa-stats --pspa-check --pspa-analyze=use --output-dir=%t.klee %t.bc 2>&1 | %FileCheck %s
// CHECK: KLEE: done: pspa failures = 0
// CHECK: KLEE: done: pspa slots: concrete = {{[0-9]+}}, symbolic addresses = 0, symbolic data = 1,
// CHECK: KLEE: done: pspa check: calls checked = 1, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
#include "klee/klee.h"

struct rec {
  long stamp;
  int *p;
};
int a;
struct rec r;

int use(struct rec *q) { return *q->p; }

int main(void) {
  long y;
  klee_make_symbolic(&y, sizeof y, "y");
  for (int i = 0; i < 12; i++)
    y = y * y + y;
  r.stamp = y;
  r.p = &a;
  return use(&r);
}
