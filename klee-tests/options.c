// Bad options stop KLEE at start-up with one clear error naming the option (exit code 1,
// no output directory made), and options that select nothing say so once (issue: right
// answers). Before, `f:abc/def` and `f:99999999999999999999` aborted KLEE with an
// uncaught std::stoul exception halfway through the run, and `f:12abc` / `f:12:13` were
// read as line 12; a doubly loaded plugin failed inside KLEE's stats database.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.out %t.warn
// RUN: %not %klee --skip-functions=f:abc/def --output-dir=%t.out %t.bc 2>&1 | %FileCheck %s --check-prefix=LETTERS
// LETTERS: for the --skip-functions option: 'f:abc/def': 'abc' is not a source line (a positive decimal number)
// RUN: %not %klee --skip-functions=f:99999999999999999999 --output-dir=%t.out %t.bc 2>&1 | %FileCheck %s --check-prefix=BIG
// BIG: for the --skip-functions option: 'f:99999999999999999999': '99999999999999999999' is not a source line
// RUN: %not %klee --skip-functions=f:12abc --output-dir=%t.out %t.bc 2>&1 | %FileCheck %s --check-prefix=TAIL
// TAIL: '12abc' is not a source line
// RUN: %not %klee --skip-functions=f:12:13 --output-dir=%t.out %t.bc 2>&1 | %FileCheck %s --check-prefix=TWO
// TWO: '12:13' is not a source line
// RUN: %not %klee --skip-functions=:3 --output-dir=%t.out %t.bc 2>&1 | %FileCheck %s --check-prefix=NONAME
// NONAME: ':3': no function name before ':'
// RUN: %not %klee --plugin=%root/build/libpspa-klee.so --output-dir=%t.out %t.bc 2>&1 | %FileCheck %s --check-prefix=TWICE
// TWICE: pspa: the plugin is loaded twice
// RUN: %not %klee --pspa-dump-snapshots=/proc/pspa-nowhere --pspa-analyze=f --output-dir=%t.out %t.bc 2>&1 | %FileCheck %s --check-prefix=DUMP
// DUMP: pspa: --pspa-dump-snapshots=/proc/pspa-nowhere: cannot write there
// None of these made the output directory.
// RUN: test ! -e %t.out
//
// Options that select nothing: a warning each, and the run goes on as KLEE alone's.
// f's only call is at line 40 (below), not 7.
// RUN: %klee --skip-functions=main,f:7,nosuch --pspa-wit --pspa-wit-at=nosuch --output-dir=%t.warn %t.bc 2>&1 | %FileCheck %s --check-prefix=WARN
// WARN: KLEE: WARNING: pspa wit: --pspa-wit-at=nosuch: no function with a body of that name in the module
// WARN: KLEE: WARNING: pspa chop: --skip-functions: main is the program: it is not skipped
// WARN: KLEE: WARNING: pspa chop: --skip-functions: no call of f at line 7
// WARN: KLEE: WARNING: pspa chop: --skip-functions: no function nosuch with a body in the module
// WARN: KLEE: done: created snapshots = 0
// WARN: KLEE: done: completed paths = 1
#include "klee/klee.h"

int g;
void f(void) { g = 1; }

int main(void) {
  f();
  return g - 1;
}
