// Functions that write only static objects (src/writeless.rs): a global by its address
// (`hits++`), errno (uclibc's strtol writes the global `errno` on overflow), with no
// pointer stored. Their calls are answered without reading the state, those statics
// their mod-sets; chopping must recover them before the statics are read.
//   tick():    hits++: writes global:hits.
//   parse(s):  strtol(s, 0, 10), result dropped: writes global:errno (strtol's endptr
//              parameter is null here; its summary writes errno and its parameter 1).
// main: tick three times, parse once; reads hits (abort unless 3). With -DREAD_ERRNO,
// parse gets a number too large for a long (strtol sets errno = ERANGE, 34) and main
// aborts unless errno is 34: a chopped run that did not recover parse would take that
// path. main reads uclibc's global `errno`, which strtol writes, by name: <errno.h>'s
// `*__errno_location()` is KLEE's own errno object, which uclibc's code does not write.
// RUN: %clang %s -o %t.bc
// RUN: %clang -DREAD_ERRNO %s -o %t.errno.bc
// RUN: rm -rf %t.on %t.check %t.chop %t.chop2 %t.base
// Four calls, all answered without the state, all by their statics.
// RUN: %klee --libc=uclibc --pspa-stats --pspa-analyze=tick,parse --output-dir=%t.on %t.bc 2>&1 | %FileCheck %s --check-prefix=ON
// ON: KLEE: done: pspa analyses = 0, reused = 4 (reuse ratio 1.0000)
// ON: KLEE: done: pspa writeless calls = 4 (answered without reading: {{.*}}; of them 4 but static objects, errno); full analyses of such functions = 0, finding a write = 0
// tick's answers name one location (the mod column), and read nothing.
// RUN: grep -c '^tick,.*,1,1,1,0,1,0,0,' %t.on/pspa-calls.csv | grep -qx 3
// Under --pspa-check the shortcut is off: what the analyses write is each summary's
// statics and nothing else (the first tick, and parse; the other two ticks get tick's
// last answer, unchanged state), and the accesses stay inside the sets.
// RUN: %klee --libc=uclibc --pspa-check --pspa-stats --pspa-analyze=tick,parse --output-dir=%t.check %t.bc 2>&1 | %FileCheck %s --check-prefix=CHECK
// CHECK: KLEE: done: pspa writeless calls = 0 ({{.*}}); full analyses of such functions = 2, finding a write = 0
// CHECK: KLEE: done: pspa check: calls checked = 4, accesses = {{[1-9][0-9]*}}, outside mod/ref = 0
// Chopped: the read of hits recovers the three ticks (chop.csv: 3 recoveries at the
// read, line 75); parse is never recovered: errno is not read, its result is dropped.
// RUN: %klee --libc=uclibc --skip-functions=tick,parse --pspa-stats --output-dir=%t.chop %t.bc 2>&1 | %FileCheck %s --check-prefix=CHOP
// CHOP-NOT: KLEE: ERROR
// CHOP: KLEE: done: pspa writeless calls = 4
// CHOP: KLEE: done: recovery states = 3
// CHOP: KLEE: done: completed paths = 1
// RUN: grep -q '^parse,1,0,0,"",1,' %t.chop/chop.csv
// RUN: grep -q '^tick,3,3,0,"writeless_statics.c:75x3",' %t.chop/chop.csv
// Reading errno recovers parse: no abort, as under KLEE alone.
// RUN: %klee --libc=uclibc --skip-functions=tick,parse --pspa-stats --output-dir=%t.chop2 %t.errno.bc 2>&1 | %FileCheck %s --check-prefix=CHOP2
// CHOP2-NOT: KLEE: ERROR
// CHOP2: KLEE: done: recovery states = 4
// CHOP2: KLEE: done: completed paths = 1
// With the other clients on (the shortcut then off): the full analyses of tick and parse
// write only their statics, nothing is outside mod/ref, no resolution mismatches, and the
// same recoveries and path as above.
// RUN: rm -rf %t.all
// RUN: %klee --libc=uclibc --skip-functions=tick,parse --pspa-check --pspa-resolve --pspa-resolve-validate --pspa-stats --output-dir=%t.all %t.errno.bc 2>&1 | %FileCheck %s --check-prefix=ALL
// ALL-NOT: KLEE: ERROR
// ALL: KLEE: done: pspa writeless calls = 0 ({{.*}}); full analyses of such functions = 2, finding a write = 0
// ALL: KLEE: done: pspa check: {{.*}}outside mod/ref = 0
// ALL: KLEE: done: pspa resolve: {{.*}}mismatches = 0
// ALL: KLEE: done: recovery states = 4
// ALL: KLEE: done: completed paths = 1
// RUN: %klee --libc=uclibc --output-dir=%t.base %t.errno.bc 2>&1 | %FileCheck %s --check-prefix=BASE
// BASE-NOT: KLEE: ERROR
// BASE: KLEE: done: completed paths = 1
#include <stdlib.h>

extern int errno;
int hits;

__attribute__((noinline)) void tick(void) { hits++; }

__attribute__((noinline)) void parse(const char *s) { (void)strtol(s, 0, 10); }

int main(void) {
  for (int i = 0; i < 3; i++)
    tick();
#ifdef READ_ERRNO
  parse("99999999999999999999999");
  if (errno != 34)
    abort();
#else
  parse("12");
#endif
  if (hits != 3)
    abort();
  return 0;
}
