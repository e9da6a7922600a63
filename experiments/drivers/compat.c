/* glibc functions KLEE's uclibc lacks, linked into the programs that call them (m4's
 * gnulib xalloc calls reallocarray). Called as an external function, reallocarray returns
 * host memory KLEE does not know: m4 died at its first hash-table access (symtab.c:107,
 * "out of bound pointer"). Defined here, it allocates through uclibc's realloc, in KLEE's
 * address space. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

void *reallocarray(void *p, size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) {
    errno = ENOMEM;
    return NULL;
  }
  return realloc(p, n * size);
}
