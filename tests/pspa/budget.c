/* Code over the work budget (session.rs, `over_budget`, `doomed`): parse() and reduce()
 * call each other, one cycle of the call graph like SQLite's parser and code generator,
 * so their slices hold the same code; run() calls parse(), so its slice holds it too;
 * leaf() is called from the cycle but calls nothing back, so its slice is its own. */
#include "../harness/observe.h"

struct tok { struct tok *next; char *text; };

char *leaf(struct tok *t) { return t->text; }
void reduce(struct tok *t, int d);
void parse(struct tok *t, int d) { if (d && t) reduce(t->next, d - 1); }
void reduce(struct tok *t, int d) { if (t) leaf(t); if (d) parse(t, d - 1); }
void run(struct tok *t) { parse(t, 3); }

int main(void) {
  static char a[2] = "a", b[2] = "b";
  struct tok *t2 = malloc(sizeof *t2), *t1 = malloc(sizeof *t1);
  OBS_TYPE(t1, "struct.tok");
  OBS_TYPE(t2, "struct.tok");
  t2->next = 0; t2->text = b;
  t1->next = t2; t1->text = a;
  OBS_LOCAL(t1);
  OBS_LOCAL(t2);
  OBS_PSPA(reduce, reduce(t1, 2), (uintptr_t)t1, 2);
  OBS_PSPA(parse, parse(t1, 2), (uintptr_t)t1, 2);
  OBS_PSPA(run, run(t1), (uintptr_t)t1);
  OBS_PSPA(leaf, leaf(t1), (uintptr_t)t1);
  OBS_PSPA(parse, parse(t1, 2), (uintptr_t)t1, 2);
  return 0;
}
