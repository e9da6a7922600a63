/* Observation harness for the soundness tests.
 *
 * Fixtures include this header. Compiled normally (for the analysis) every macro is a
 * no-op or the plain call, so the analysed bitcode is the program itself. Compiled natively
 * with -DOBSERVE, allocations are tagged with their site label (heap:F:LINE, the label
 * `pspa analyze` gives them), registered locals and globals with stack:F:x / global:g, and:
 *   OBS_POINT()          records every pointer stored in a registered object that points
 *                        into a registered object:   edge LABEL OFF LABEL OFF
 *   OBS_PTR(p)           records what pointer variable p of this function points to:
 *                                                    var F::p LABEL OFF
 *   OBS_CALL(f, call);   runs the call and records which bytes of registered objects it
 *                        changed:                    mod f LABEL OFF
 *   OBS_PSPA(f, call, args...)  writes a pspa.snapshot/1 of every registered object right
 *                        before the call ($OBS_OUT.N.json, N = 1, 2, ...; module from
 *                        $OBS_MODULE), runs it, and records which bytes of the objects
 *                        of that snapshot it changed:  pmod N f LABEL@ID OFF
 *   OBS_TYPE(p, "T")     the object holding p has LLVM type T in the snapshots
 *   OBS_FUNC(f)          lets snapshots name function pointers to f
 * Output goes to the file named by $OBS_OUT. The test maps byte offsets to abstract fields
 * with the analysis' own layouts and checks that every observed fact is in the result.
 * Freed objects are unregistered but never released, so addresses are never reused.
 * Limitation: two allocation sites on one line get one label here; the test accepts any
 * of the analysis' `#k` variants for it. */
#ifndef PSPA_OBSERVE_H
#define PSPA_OBSERVE_H
#include <stdlib.h>
#include <string.h>

#ifdef OBSERVE
#include <stdint.h>
#include <stdio.h>

struct obs_obj { char *base; size_t size; char label[96]; int live; unsigned char *saved; const char *type; };
static struct obs_obj obs_objs[4096];
static int obs_n;
static FILE *obs_out;

static FILE *obs_file(void) {
  if (!obs_out) {
    const char *p = getenv("OBS_OUT");
    obs_out = p ? fopen(p, "w") : stderr;
  }
  return obs_out;
}

static void obs_reg(void *base, size_t size, const char *kind, const char *fn, const char *name) {
  struct obs_obj *o;
  if (!base || obs_n == 4096) return;
  o = &obs_objs[obs_n++];
  o->base = base; o->size = size; o->live = 1; o->saved = 0; o->type = 0;
  if (fn[0]) snprintf(o->label, sizeof o->label, "%s:%s:%s", kind, fn, name);
  else snprintf(o->label, sizeof o->label, "%s:%s", kind, name);
}

static struct obs_obj *obs_find(uintptr_t a) {
  for (int i = obs_n - 1; i >= 0; i--)
    if (obs_objs[i].live && a >= (uintptr_t)obs_objs[i].base && a < (uintptr_t)obs_objs[i].base + obs_objs[i].size)
      return &obs_objs[i];
  return 0;
}

static void obs_unreg(void *base) {
  for (int i = obs_n - 1; i >= 0; i--)
    if (obs_objs[i].live && obs_objs[i].base == base) { obs_objs[i].live = 0; return; }
}

static void *obs_malloc(size_t n, const char *fn, int line) {
  char l[16];
  void *p = calloc(1, n ? n : 1); /* zeroed: no stale pointers in fresh objects */
  snprintf(l, sizeof l, "%d", line);
  obs_reg(p, n, "heap", fn, l);
  return p;
}

static void *obs_calloc(size_t n, size_t m, const char *fn, int line) { return obs_malloc(n * m, fn, line); }

static void *obs_realloc(void *old, size_t n, const char *fn, int line) {
  void *p = obs_malloc(n, fn, line);
  struct obs_obj *o = old ? obs_find((uintptr_t)old) : 0;
  if (o) { memcpy(p, old, o->size < n ? o->size : n); o->live = 0; }
  return p;
}

static char *obs_strdup(const char *s, const char *fn, int line) {
  char *p = obs_malloc(strlen(s) + 1, fn, line);
  strcpy(p, s);
  return p;
}

static void obs_point(void) {
  FILE *f = obs_file();
  for (int i = 0; i < obs_n; i++) {
    struct obs_obj *o = &obs_objs[i];
    if (!o->live) continue;
    for (size_t off = 0; off + sizeof(void *) <= o->size; off += sizeof(void *)) {
      uintptr_t v;
      memcpy(&v, o->base + off, sizeof v);
      struct obs_obj *t = obs_find(v);
      if (t) fprintf(f, "edge %s %zu %s %zu\n", o->label, off, t->label, (size_t)(v - (uintptr_t)t->base));
    }
  }
  fflush(f);
}

static void obs_ptr(const char *fn, const char *name, const void *p) {
  struct obs_obj *t = obs_find((uintptr_t)p);
  if (t) fprintf(obs_file(), "var %s::%s %s %zu\n", fn, name, t->label, (size_t)((const char *)p - t->base));
}

static void obs_before(void) {
  for (int i = 0; i < obs_n; i++) {
    struct obs_obj *o = &obs_objs[i];
    free(o->saved);
    o->saved = o->live ? malloc(o->size ? o->size : 1) : 0;
    if (o->saved) memcpy(o->saved, o->base, o->size);
  }
}

static void obs_after(const char *fn) {
  for (int i = 0; i < obs_n; i++) {
    struct obs_obj *o = &obs_objs[i];
    if (!o->live || !o->saved) continue;
    for (size_t off = 0; off < o->size; off++)
      if (o->saved[off] != (unsigned char)o->base[off]) fprintf(obs_file(), "mod %s %s %zu\n", fn, o->label, off);
  }
  obs_point();
}

/* ---- snapshots for the past-sensitive analysis ---- */
struct obs_fn { void *addr; const char *name; };
static struct obs_fn obs_fns[64];
static int obs_nfn, obs_nsnap, obs_snap_n;

static void obs_target(FILE *f, uintptr_t v) {
  struct obs_obj *t = obs_find(v);
  if (t) { fprintf(f, "{\"object\": %d, \"offset\": %zu}", (int)(t - obs_objs) + 1, (size_t)(v - (uintptr_t)t->base)); return; }
  for (int i = 0; i < obs_nfn; i++)
    if ((uintptr_t)obs_fns[i].addr == v) { fprintf(f, "{\"function\": \"%s\"}", obs_fns[i].name); return; }
  fprintf(f, "{\"null\": true}");
}

static int obs_is_ptr(uintptr_t v) {
  if (obs_find(v)) return 1;
  for (int i = 0; i < obs_nfn; i++) if ((uintptr_t)obs_fns[i].addr == v) return 1;
  return 0;
}

static void obs_snapshot(const char *fn, int nargs, const uintptr_t *args) {
  char path[512];
  const char *out = getenv("OBS_OUT"), *mod = getenv("OBS_MODULE");
  snprintf(path, sizeof path, "%s.%d.json", out ? out : "obs", ++obs_nsnap);
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "{\"schema\": \"pspa.snapshot/1\", \"module\": \"%s\",\n \"call\": {\"function\": \"%s\", \"args\": [", mod ? mod : "", fn);
  for (int i = 0; i < nargs; i++) {
    fprintf(f, "%s", i ? ", " : "");
    if (obs_is_ptr(args[i]) || args[i] == 0) { fprintf(f, "{\"targets\": ["); obs_target(f, args[i]); fprintf(f, "]}"); }
    else fprintf(f, "{\"value\": \"int\"}");
  }
  fprintf(f, "]},\n \"globals\": {");
  int first = 1;
  for (int i = 0; i < obs_n; i++)
    if (obs_objs[i].live && !strncmp(obs_objs[i].label, "global:", 7)) {
      fprintf(f, "%s\"%s\": %d", first ? "" : ", ", obs_objs[i].label + 7, i + 1); first = 0;
    }
  fprintf(f, "},\n \"objects\": [");
  first = 1;
  for (int i = 0; i < obs_n; i++) {
    struct obs_obj *o = &obs_objs[i];
    if (!o->live) continue;
    fprintf(f, "%s\n  {\"id\": %d, \"site\": \"%s\", \"size\": %zu, \"type\": ", first ? "" : ",", i + 1, o->label, o->size);
    first = 0;
    if (o->type) fprintf(f, "\"%s\"", o->type); else fprintf(f, "null");
    fprintf(f, ", \"pointers\": [");
    int pf = 1;
    for (size_t off = 0; off + sizeof(void *) <= o->size; off += sizeof(void *)) {
      uintptr_t v;
      memcpy(&v, o->base + off, sizeof v);
      if (!obs_is_ptr(v)) continue;
      fprintf(f, "%s{\"offset\": %zu, \"targets\": [", pf ? "" : ", ", off); pf = 0;
      obs_target(f, v);
      fprintf(f, "]}");
    }
    fprintf(f, "]}");
  }
  fprintf(f, "]}\n");
  fclose(f);
  obs_snap_n = obs_n;
  obs_before();
}

static void obs_pspa_after(const char *fn) {
  for (int i = 0; i < obs_snap_n; i++) {
    struct obs_obj *o = &obs_objs[i];
    if (!o->saved) continue;
    for (size_t off = 0; off < o->size; off++)
      if (o->saved[off] != (unsigned char)o->base[off])
        fprintf(obs_file(), "pmod %d %s %s@%d %zu\n", obs_nsnap, fn, o->label, i + 1, off);
  }
  fflush(obs_file());
}

static void obs_type(const void *p, const char *ty) {
  struct obs_obj *o = obs_find((uintptr_t)p);
  if (o) o->type = ty;
}

#define malloc(n) obs_malloc((n), __func__, __LINE__)
#define calloc(n, m) obs_calloc((n), (m), __func__, __LINE__)
#define realloc(p, n) obs_realloc((p), (n), __func__, __LINE__)
#define strdup(s) obs_strdup((s), __func__, __LINE__)
#define free(p) obs_unreg(p)
#define OBS_LOCAL(x) obs_reg(&(x), sizeof(x), "stack", __func__, #x)
#define OBS_GLOBAL(x) obs_reg(&(x), sizeof(x), "global", "", #x)
#define OBS_UNREG(x) obs_unreg(&(x))
#define OBS_POINT() obs_point()
#define OBS_PTR(p) obs_ptr(__func__, #p, (p))
#define OBS_CALL(f, call) do { obs_before(); call; obs_after(#f); } while (0)
#define OBS_PSPA(f, call, ...) do { uintptr_t obs_a[] = {__VA_ARGS__}; \
    obs_snapshot(#f, sizeof obs_a / sizeof obs_a[0], obs_a); call; obs_pspa_after(#f); } while (0)
#define OBS_TYPE(p, t) obs_type((p), (t))
#define OBS_FUNC(f) (obs_fns[obs_nfn].addr = (void *)(f), obs_fns[obs_nfn++].name = #f)
#else
#define OBS_PSPA(f, call, ...) call
#define OBS_TYPE(p, t) ((void)0)
#define OBS_FUNC(f) ((void)0)
#define OBS_LOCAL(x) ((void)0)
#define OBS_GLOBAL(x) ((void)0)
#define OBS_UNREG(x) ((void)0)
#define OBS_POINT() ((void)0)
#define OBS_PTR(p) ((void)0)
#define OBS_CALL(f, call) call
#endif
#endif
