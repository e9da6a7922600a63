/* SQLite driver: exercises the SQL tokenizer, parser and code generator on symbolic input.
 * A :memory: database holds a small table t(a, b) with two rows; then an N-byte symbolic
 * statement (NUL-terminated) runs through sqlite3_exec. */
#include <sqlite3.h>
#include <stddef.h>

#ifndef N
#define N 13
#endif
void klee_make_symbolic(void *addr, size_t size, const char *name);
void klee_assume(unsigned long condition);

int main(void) {
  sqlite3 *db;
  char sql[N + 1];
  if (sqlite3_open(":memory:", &db) != SQLITE_OK)
    return 1;
  if (sqlite3_exec(db, "CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES(1, 'x'), (2, 'y');",
                   0, 0, 0) != SQLITE_OK)
    return 1;
  /* KLEE makes whole objects symbolic: the terminator is an assumption. */
  klee_make_symbolic(sql, sizeof sql, "sql");
  klee_assume(sql[N] == 0);
  sqlite3_exec(db, sql, 0, 0, 0);
  sqlite3_close(db);
  return 0;
}
