/* Method tables in the state, as SQLite's allocator and VFS tables: a miss's slice holds
 * the addresses of the functions the state points to, not their bodies (src/slice.rs),
 * and solves again with a body once a call through a pointer binds it.
 *   db_malloc(d, n)  calls d->m->xMalloc, i.e. pool_malloc: writes `used`. The table's
 *                    other methods (pool_free, audit) are never called: audit's effects
 *                    (it writes `audit_log` through log_line) must not appear.
 *   db_sort(d)       qsort with the comparator the state holds (d->cmp = by_len): the
 *                    library model calls it back; by_len counts in `compares`. */
#include "../harness/observe.h"
#include <stdlib.h>
#include <string.h>

struct methods {
  void *(*xMalloc)(int);
  void (*xFree)(void *);
  int (*xAudit)(const char *);
};

static char pool[256];
int used;
const char *audit_log[8];
int audit_n;
int compares;

void *pool_malloc(int n) { void *p = pool + used; used += n; return p; }
void pool_free(void *p) { (void)p; }
void log_line(const char *s) { audit_log[audit_n++ % 8] = s; }
int audit(const char *s) { log_line(s); log_line("audit"); return audit_n; }

struct methods cfg = { pool_malloc, pool_free, audit };

int by_len(const void *a, const void *b) {
  compares++;
  return (int)strlen(*(char *const *)a) - (int)strlen(*(char *const *)b);
}

struct db {
  struct methods *m;
  int (*cmp)(const void *, const void *);
  char *names[4];
};

struct db the_db = { &cfg, by_len, { "three", "a", "bb", "dddd" } };

void *db_malloc(struct db *d, int n) { return d->m->xMalloc(n); }

void db_sort(struct db *d) { qsort(d->names, 4, sizeof d->names[0], d->cmp); }

int main(void) {
  OBS_GLOBAL(cfg);
  OBS_GLOBAL(used);
  OBS_GLOBAL(audit_log);
  OBS_GLOBAL(audit_n);
  OBS_GLOBAL(compares);
  OBS_GLOBAL(the_db);
  OBS_FUNC(pool_malloc);
  OBS_FUNC(pool_free);
  OBS_FUNC(audit);
  OBS_FUNC(by_len);
  OBS_PSPA(db_malloc, db_malloc(&the_db, 8), (uintptr_t)&the_db, 8);
  OBS_PSPA(db_malloc, db_malloc(&the_db, 16), (uintptr_t)&the_db, 16);
  OBS_PSPA(db_sort, db_sort(&the_db), (uintptr_t)&the_db);
  return used + compares;
}
