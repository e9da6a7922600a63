/* A global read only by a copy: memcpy reads `defaults` without a load, so no field key of
 * the analysis would fetch it ahead (a copy walks nowhere). The session remembers the
 * global itself (ReadKey::Copied, by its site): load_defaults' second call fetches it in its
 * first round, where the first call needed a second round for it. */
#include "../harness/observe.h"
#include <string.h>

struct conf {
  char *name;
  struct conf *next;
};

struct conf defaults = {"x", 0};

void load_defaults(struct conf *dst) { memcpy(dst, &defaults, sizeof *dst); }

int main(void) {
  struct conf *c = malloc(sizeof *c);
  OBS_TYPE(c, "struct.conf");
  OBS_GLOBAL(defaults);
  OBS_LOCAL(c);
  OBS_PSPA(load_defaults, load_defaults(c), (uintptr_t)c);
  OBS_PSPA(load_defaults, load_defaults(c), (uintptr_t)c);
  return c->name[0] == 'x' ? 0 : 1;
}
