/* Calls that end the process (Function::ends_process, Solver::cut_exits). keep() copies a
 * name with xstrdup; xmalloc calls fatal() when malloc fails, and fatal() tears the
 * program down (it sets `torn_down`, clears `entries` and frees every entry) and
 * calls exit: it has no `ret` and an `unreachable`, so it ends the process. Nothing after
 * keep() returns can see what fatal() did, so keep()'s sets leave it out by default; with
 * follow_exits they have it. spin() never returns either, but by an endless loop with no
 * `unreachable`: it is not marked (a client asking whether a call may end the path must
 * still see what it calls). */
#include "../harness/observe.h"
#include <string.h>

struct entry {
  struct entry *next;
  char *name;
};

struct entry *entries;
int torn_down;

void fatal(const char *why) {
  struct entry *e = entries;
  while (e) {
    struct entry *n = e->next;
    free(e->name);
    free(e);
    e = n;
  }
  entries = 0;
  torn_down = 1;
  exit(2);
}

void *xmalloc(unsigned long n) {
  void *p = malloc(n);
  if (!p)
    fatal("out of memory");
  return p;
}

char *xstrdup(const char *s) { return strcpy(xmalloc(strlen(s) + 1), s); }

void keep(struct entry *e, const char *s) { e->name = xstrdup(s); }

volatile int stop;
void spin(void) {
  for (;;)
    if (stop)
      fatal("stopped");
}

int main(void) {
  struct entry *e = malloc(sizeof *e);
  OBS_TYPE(e, "struct.entry");
  e->next = 0;
  e->name = 0;
  entries = e;
  OBS_GLOBAL(entries);
  OBS_GLOBAL(torn_down);
  OBS_LOCAL(e);
  OBS_PSPA(keep, keep(e, "a"), (uintptr_t)e, (uintptr_t) "a");
  if (stop)
    spin();
  return e->name[0] == 'a' ? 0 : 1;
}
