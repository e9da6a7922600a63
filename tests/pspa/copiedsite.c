/* Objects read only by a copy. find() memcpy's (in scan(), its callee) the caller's `key`
 * (a stack array) into a buffer of its own, then compares the entries' names with the
 * buffer: no load reads `key`, so no key of a load fetches it ahead. It is opaque at the
 * first call, whose solve demands it: a second round, a whole solve again. Its next call
 * fetches it ahead: by its site (ReadKey::Copied) and because an argument points to it
 * (ReadKey::ArgCopied), either one enough here. Without both every call solved twice
 * (libtasn1's asn1_find_node, which copies its name argument, a stack array of its
 * caller, into its local `n`).
 * lookup() copies its key the same way, but its two calls get arrays of two sites (`k1`,
 * `k2`; as `_asn1_set_name`'s calls get another string constant each): the argument's
 * key fetches the second ahead, whatever its site.
 * take() copies what a field of its argument points to: a heap buffer, a new one at each
 * call, all of one allocation site. No argument points to it and its site is not a
 * layout a load read: the session remembers the site of what was copied
 * (ReadKey::Copied), and the second call fetches the new buffer ahead when the walk
 * through `h->buf` meets it. */
#include "../harness/observe.h"
#include <string.h>

struct entry {
  char *name;
  struct entry *next;
};

static int same(const char *a, const char *b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

/* The search both find() and lookup() run: the copy of `key` is theirs (a callee's reads
 * are the caller's analysis'). */
static struct entry *scan(struct entry *e, const char *key) {
  char k[4];
  memcpy(k, key, sizeof k);
  for (; e; e = e->next)
    if (same(e->name, k))
      return e;
  return 0;
}

struct entry *find(struct entry *e, const char *key) { return scan(e, key); }

/* find() again under another name: a function's read keys are its own. */
struct entry *lookup(struct entry *e, const char *key) { return scan(e, key); }

struct holder {
  char *buf;
};

int take(struct holder *h) {
  char k[4];
  memcpy(k, h->buf, sizeof k);
  return k[0];
}

int main(void) {
  struct entry *head = 0;
  for (int i = 0; i < 3; i++) {
    struct entry *e = malloc(sizeof *e);
    OBS_TYPE(e, "struct.entry");
    e->name = malloc(2);
    e->name[0] = (char)('a' + i);
    e->name[1] = 0;
    e->next = head;
    head = e;
  }
  char key[4] = "b";
  OBS_LOCAL(head);
  OBS_LOCAL(key);
  struct entry *r;
  OBS_PSPA(find, r = find(head, key), (uintptr_t)head, (uintptr_t)key);
  key[0] = 'c';
  OBS_PSPA(find, r = find(head, key), (uintptr_t)head, (uintptr_t)key);
  char k1[4] = "a", k2[4] = "c";
  OBS_LOCAL(k1);
  OBS_LOCAL(k2);
  struct entry *q;
  OBS_PSPA(lookup, q = lookup(head, k1), (uintptr_t)head, (uintptr_t)k1);
  OBS_PSPA(lookup, q = lookup(head, k2), (uintptr_t)head, (uintptr_t)k2);
  struct holder h;
  OBS_LOCAL(h);
  int t = 0;
  for (int i = 0; i < 2; i++) {
    h.buf = malloc(4);
    memcpy(h.buf, "xyz", 4);
    OBS_PSPA(take, t += take(&h), (uintptr_t)&h);
  }
  return r && q && t ? 0 : 1;
}
