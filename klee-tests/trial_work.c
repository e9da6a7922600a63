// The trial budget (--pspa-trial-work, SessionOptions::trial_work): the first solve of a
// function that needs more than it is given up (the call gets --pspa-fallback's answer),
// and the function's later calls get the whole --pspa-max-work.
// RUN: %clang %s -o %t.bc
// tail_of is writeless: without --pspa-check its calls would need no analysis (--pspa-writeless),
// so the runs that exercise budgets without a client turn that off.
// RUN: rm -rf %t.trial %t.off %t.whole %t.unknown
// tail_of is called three times on the same 8-node list. A trial budget of one element
// stops its first solve (any solve offers more than one element): that call goes over
// the work budget, as the first of its function over the trial budget. The second call
// has the whole (default) budget and is solved; the third finds the state unchanged.
// The first call gets tail_of's whole-program answer instead (--pspa-fallback's default),
// checked like the others; with --pspa-fallback=unknown it fails.
// RUN: %klee --pspa-writeless=false --pspa-analyze=tail_of --pspa-trial-work=1 --pspa-check --output-dir=%t.trial %t.bc 2>&1 | %FileCheck %s --check-prefix=TRIAL
// TRIAL: KLEE: done: pspa calls analysed = 3 (pspa)
// TRIAL: KLEE: done: pspa failures = 0
// TRIAL: KLEE: done: pspa whole-program answers = 1 (calls the past-sensitive analysis could not answer; 1 over the work budget, 1 of them the first of their function over the trial budget; whole-program analysis {{[0-9.]+}} s, functions answered = 1)
// TRIAL: KLEE: done: pspa check: calls checked = {{[1-9][0-9]*}}, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// RUN: %klee --pspa-writeless=false --pspa-analyze=tail_of --pspa-trial-work=1 --pspa-fallback=unknown --output-dir=%t.unknown %t.bc 2>&1 | %FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: KLEE: done: pspa failures = 1 (1 over the work budget, 1 of them the first of their function over the trial budget)
// 0 turns the trial off: every call is solved within the whole budget (were 0 taken as a
// budget of nothing, the first call would fail).
// RUN: %klee --pspa-writeless=false --pspa-analyze=tail_of --pspa-trial-work=0 --output-dir=%t.off %t.bc 2>&1 | %FileCheck %s --check-prefix=OFF
// OFF: KLEE: done: pspa failures = 0
// A trial not below the whole budget is off too: with both at one element the first
// call goes over the whole budget, which marks the function, and the two later calls
// get the whole-program answer at once (3 over the budget, none over a trial budget; one
// function's answer made, when the check first asks it).
// RUN: %klee --pspa-writeless=false --pspa-analyze=tail_of --pspa-max-work=1 --pspa-trial-work=1 --pspa-check --output-dir=%t.whole %t.bc 2>&1 | %FileCheck %s --check-prefix=WHOLE
// WHOLE: KLEE: done: pspa failures = 0
// WHOLE: KLEE: done: pspa whole-program answers = 3 (calls the past-sensitive analysis could not answer; 3 over the work budget; whole-program analysis {{[0-9.]+}} s, functions answered = 1)
#include <stdlib.h>

struct node {
  struct node *next;
  int val;
};

__attribute__((noinline)) struct node *tail_of(struct node *n) {
  while (n->next)
    n = n->next;
  return n;
}

int main(void) {
  struct node *l = 0;
  for (int i = 0; i < 8; i++) {
    struct node *n = malloc(sizeof *n);
    n->next = l;
    n->val = i;
    l = n;
  }
  int s = 0;
  for (int k = 0; k < 3; k++)
    s += tail_of(l)->val;
  return s;
}
