// A path holding a huge object skips no more calls. A snapshot shares the state's objects,
// so the path's next write into one makes KLEE copy it whole (libtasn1 CVE-2012-1569's
// driver allocates 2 GiB from a length it decodes; KLEE's own copies of it across states
// reached 19.7 GB, and one such run was killed by the kernel). From its first allocation of a sixteenth of --max-memory or more (2000 MB by default:
// 125 MB), a path runs its calls of skipped functions.
// `note` writes only `count`, which nothing reads, and forks nowhere.
//   Without the big buffer (argument 0): the 2 calls of note are skipped (2 snapshots),
//   none recovered.
//   With it (argument 1: 200 MB, allocated after the first call): the first call is skipped
//   (1 snapshot), the second runs (calls run on paths holding a huge object = 1) and reads
//   `count`, which the first may have written: that call is recovered first (1 recovery).
// Both: 1 path, no error.
// RUN: %clang %s -o %t.bc
// RUN: rm -rf %t.small %t.big
// RUN: %klee --skip-functions=note --output-dir=%t.small %t.bc 0 2>&1 | %FileCheck %s --check-prefix=SMALL
// SMALL: KLEE: done: recovery states = 0
// SMALL: KLEE: done: created snapshots = 2
// SMALL: calls run on paths holding a huge object = 0
// RUN: %klee --skip-functions=note --output-dir=%t.big %t.bc 1 2>&1 | %FileCheck %s --check-prefix=BIG
// BIG: pspa chop: a path allocated an object of 125 MB or more
// BIG: KLEE: done: recovery states = 1
// BIG: KLEE: done: created snapshots = 1
// BIG: calls run on paths holding a huge object = 1
// BIG: KLEE: done: completed paths = 1
// RUN: %python %checks stats %t.big chop.huge_object_calls=1
#include <stdlib.h>

int count;

void note(int k) { count += k; }

int main(int argc, char **argv) {
  note(1);
  char *big = 0;
  if (argc > 1 && argv[1][0] == '1') {
    big = malloc(200u << 20);
    big[0] = 1;
  }
  note(2);
  return big ? big[0] - 1 : 0;
}
