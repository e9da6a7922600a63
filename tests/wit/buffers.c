/* WIT colours (tests/wit.rs). Three buffers come from one allocation wrapper; the
 * configuration struct from its own site. `work` is the function WIT protects, called
 * after `init` (the end of initialization). */
#include <stdlib.h>
#include <string.h>

struct conf { char *name; char *path; int flags; };

char *alloc_buf(unsigned long n) { return malloc(n); }

struct conf *cfg;
char *a, *b, *c;

void init(void) {
  a = alloc_buf(8);
  b = alloc_buf(8);
  c = alloc_buf(8);
  cfg = malloc(sizeof *cfg);
  cfg->name = a;
}

void work(void) {
  a[0] = 1;
  b[0] = 2;
  memcpy(c, "xy", 3);
  cfg->flags = 3;
  strcpy(b, "q");
}

int main(void) {
  init();
  work();
  return 0;
}
