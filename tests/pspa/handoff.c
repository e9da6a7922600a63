/* Calls whose callees read whatever their argument reaches. `sink` is defined nowhere
 * (unknown code: it may read and write all it reaches); `report` formats its list through
 * `vprintf`, whose model reads everything the va_list reaches (a deep access: the walk
 * decides what the call reads, `ModRef::walked`). */
#include <stdarg.h>
#include <stdio.h>

struct cell {
  struct cell *next;
  int v;
};

void sink(struct cell *c);

void hand_off(struct cell *c) { sink(c); }

static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
}

void report(struct cell *c) { say("%p\n", c); }

int main(void) { return 0; }
