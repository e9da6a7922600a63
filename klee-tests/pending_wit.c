// WIT colours computed while a skipped call is pending (issue: right answers). `setup`
// allocates the two buffers and stores them into cfg; it is skipped. The WIT point is the
// call of `work`, where in KLEE's state cfg.a and cfg.b are still null: colours from that
// state alone know no buffer, so work's writes through cfg.a and cfg.b would write objects
// (allocated by setup's recovery, after the WIT point: setup's static sites) without a
// colour: "not coloured" writes, unchecked. Joined with setup's post-state, cfg.a and cfg.b
// point to setup's two sites (one each: two calls of malloc at two lines), which get two
// colours, and every write of work is checked: 0 violations, 0 not coloured. KLEE alone
// and every configuration: one path.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.pspa %t.spa
// RUN: %klee --skip-functions=setup --pspa-wit --pspa-wit-at=work --pspa-wit-check --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s
// RUN: %klee --skip-functions=setup --pspa-wit --pspa-wit-at=work --pspa-wit-check --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s
// CHECK-NOT: ASSERTION FAIL
// CHECK: KLEE: done: wit check: writes checked = {{[1-9][0-9]*}}, violations = 0, not coloured = 0
// CHECK: KLEE: done: completed paths = 1
// RUN: %python %checks wit %t.pspa/wit.json %s work distinct "cfg.a[1] = 1" "cfg.b[2] = 2"
#include "klee/klee.h"
#include <stdlib.h>

struct config {
  char *a;
  char *b;
} cfg;

void setup(void) {
  cfg.a = malloc(4);
  cfg.b = malloc(8);
}

void work(void) {
  cfg.a[1] = 1;
  cfg.b[2] = 2;
}

int main(void) {
  setup();
  work();
  klee_assert(cfg.a[1] == 1 && cfg.b[2] == 2);
  return 0;
}
