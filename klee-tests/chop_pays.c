// Chopping that pays off, and why past-sensitivity matters (the demo's last part:
// scripts/demo.sh). Four records with a symbolic `kind` each; `audit` is called for each
// and forks 4 ways on it (counting kinds into a log). main then checks the records and has
// a planted bug: kinds 7 and 9 in records 2 and 3 fail the assertion.
//   KLEE alone: every audit call forks: 4 x 4 x 4 x 4 = 256 paths through the audits. The
//   64 whose record 2 took the 1..99 branch split at `kind == 7`, and of those the 16 whose
//   record 3 did split at the assertion: 256 + 64 = 320 completed paths and 16 failures.
//   --skip-functions=audit: the calls are skipped; they write only the log, which nothing
//   reads, so no recovery is needed, and the path ends dropping them (a clean exit).
//   - with PSPA, audit calls `handler` through a function pointer, which the state at the call
//     holds as count_kind; its answer says it writes the log object only. Reading the
//     records needs no recovery: 0 recoveries, 3 paths (kind 7 in record 2 or not; then
//     kind 9 in record 3 or not, the failing one) and the error.
//   - with SPA, the whole program also lets `handler` be fix_kind (the table `handlers` holds
//     both), which writes records, and the log and the records come from one allocation
//     site (new_obj's malloc): every record read may read an audit's write, so every
//     audit is recovered (its forks come back).
// Both chopped runs report the assertion KLEE alone reports, at the same line.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.base %t.pspa %t.spa
// RUN: %klee --output-dir=%t.base %t.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE: ASSERTION FAIL: !(r[2]->kind == 7 && r[3]->kind == 9)
// BASE: KLEE: done: completed paths = 320
// BASE: KLEE: done: partially completed paths = 16
// RUN: %klee --skip-functions=audit --output-dir=%t.pspa %t.bc 2>&1 | %FileCheck %s --check-prefix=PSPA
// PSPA: ASSERTION FAIL: !(r[2]->kind == 7 && r[3]->kind == 9)
// PSPA: KLEE: done: recovery states = 0
// PSPA: KLEE: done: created snapshots = 4
// PSPA: KLEE: done: completed paths = 2
// PSPA: KLEE: done: partially completed paths = 1
// RUN: %klee --skip-functions=audit --pspa-mode=spa --output-dir=%t.spa %t.bc 2>&1 | %FileCheck %s --check-prefix=SPA
// SPA: ASSERTION FAIL: !(r[2]->kind == 7 && r[3]->kind == 9)
// SPA: KLEE: done: recovery states = {{[1-9][0-9]*}}
// RUN: %python %checks same-errors %t.pspa %t.base
// RUN: %python %checks same-errors %t.spa %t.base
// RUN: %python %checks fewer-instructions %t.pspa %t.spa
// RUN: %python %checks fewer-instructions %t.pspa %t.base
#include "klee/klee.h"
#include <stdlib.h>

struct rec {
  int kind, len;
};
struct log {
  int counts[4];
};

void *new_obj(size_t n) { return calloc(1, n); }

void count_kind(void *ctx, int kind) {
  struct log *l = ctx;
  if (kind < 0)
    l->counts[0]++;
  else if (kind == 0)
    l->counts[1]++;
  else if (kind < 100)
    l->counts[2]++;
  else
    l->counts[3]++;
}

void fix_kind(void *ctx, int kind) {
  struct rec *r = ctx;
  if (kind < 0)
    r->len = 0;
}

void (*handlers[2])(void *, int) = {count_kind, fix_kind};
void (*handler)(void *, int);
void *handler_ctx;

void audit(int kind) { handler(handler_ctx, kind); }

int main(int argc, char **argv) {
  struct rec *r[4];
  int kinds[4];
  struct log *log = new_obj(sizeof *log);
  handler = handlers[argc > 1]; // count_kind unless an argument is given
  handler_ctx = log;
  klee_make_symbolic(kinds, sizeof kinds, "kinds");
  for (int i = 0; i < 4; i++) {
    r[i] = new_obj(sizeof *r[i]);
    r[i]->kind = kinds[i];
    r[i]->len = i;
  }
  for (int i = 0; i < 4; i++)
    audit(r[i]->kind);
  int total = 0;
  for (int i = 0; i < 4; i++)
    total += r[i]->len;
  klee_assert(total == 6);
  if (r[2]->kind == 7)
    klee_assert(!(r[2]->kind == 7 && r[3]->kind == 9));
  return 0;
}
