#!/usr/bin/env python3
"""Writes the hand-built pspa.snapshot/1 files of examples/fig1.c (the paper's Figure 1).

The state is what the program holds right before line 25 of fig1.c, `table_insert(t1, k1, "foo")`,
with k1 = 1 (argc = 1): main's loop (lines 20-23) inserted keys 0..19, even keys into t1 and
odd keys into t2. The hash is k % 20, so every bucket holds exactly one element and each
element's `next` is NULL. Object ids are arbitrary but fixed:

  1 / 3      t1 / t2 (heap:table_alloc:13, struct.table_t, 16 bytes)
  2 / 4      t1->array / t2->array (heap:table_alloc:14, 20 pointers = 160 bytes)
  100 + k    element of key k (heap:table_insert:32, struct.elem_t, 24 bytes)
  200 + k    its value buffer (heap:table_insert:33, 10 bytes, untyped: malloc(10) is
             never cast, so the object is field-insensitive)
  5, 6, 7    the string literals @.str ("%u %9s"), @.str.1 ("...") and @.str.2 ("foo")
  8, 9       main's locals t1 and t2 (unreachable from the call's roots: projected away)

fig1-insert.json: the call table_insert(t1, 1, "foo") at line 25.
fig1-lookup.json: the call table_lookup(t2, k2) at line 26, after that insert ran: key 1
                  went into t1's bucket 1 as element 120 with buffer 220.
fig1-chopped-*.json: the same two calls on one path where the insert is *skipped*, so the
                  lookup's state lacks element 120 and the insert's post-state is merged.
"""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))


def obj(i, site, size, ty, ptrs=()):
    return {"id": i, "site": site, "size": size, "type": ty,
            "pointers": [{"offset": o, "targets": t} for o, t in ptrs]}


def to(i, off=0):
    return [{"object": i, "offset": off}]


def state(extra_t1=False):
    objs = []
    buckets = {1: {}, 3: {}}
    for k in range(20):
        table = 1 if k % 2 == 0 else 3
        buckets[table][k] = 100 + k
        objs.append(obj(100 + k, "heap:table_insert:32", 24, "struct.elem_t",
                        [(8, to(200 + k)), (16, [{"null": True}])]))
        objs.append(obj(200 + k, "heap:table_insert:33", 10, None))
    if extra_t1:
        # table_insert(t1, 1, "foo") ran: bucket 1 of t1 now holds element 120.
        buckets[1][1] = 120
        objs.append(obj(120, "heap:table_insert:32", 24, "struct.elem_t",
                        [(8, to(220)), (16, [{"null": True}])]))
        objs.append(obj(220, "heap:table_insert:33", 10, None))
    for table, array in ((1, 2), (3, 4)):
        objs.append(obj(table, "heap:table_alloc:13", 16, "struct.table_t", [(8, to(array))]))
        objs.append(obj(array, "heap:table_alloc:14", 160, "%struct.elem_t*",
                        [(8 * h, to(e)) for h, e in sorted(buckets[table].items())]))
    objs.append(obj(5, "global:.str", 7, "[7 x i8]"))
    objs.append(obj(6, "global:.str.1", 4, "[4 x i8]"))
    objs.append(obj(7, "global:.str.2", 4, "[4 x i8]"))
    objs.append(obj(8, "stack:main:t1", 8, "%struct.table_t*", [(0, to(1))]))
    objs.append(obj(9, "stack:main:t2", 8, "%struct.table_t*", [(0, to(3))]))
    objs.sort(key=lambda o: o["id"])
    return objs


def snapshot(call, objs, path=None):
    s = {"schema": "pspa.snapshot/1", "module": "../fig1.c"}
    if path:
        s["path"] = path
    s["call"] = call
    s["globals"] = {".str": 5, ".str.1": 6, ".str.2": 7}
    s["objects"] = objs
    return s


insert = {"function": "table_insert", "line": 25,
          "args": [{"targets": to(1)}, {"value": "int"}, {"targets": to(7)}]}
lookup = {"function": "table_lookup", "line": 26,
          "args": [{"targets": to(3)}, {"value": "int"}]}
files = {
    "fig1-insert.json": snapshot(insert, state()),
    "fig1-lookup.json": snapshot(lookup, state(extra_t1=True)),
    "fig1-chopped-1.json": snapshot(dict(insert, skipped=True), state(), path="chopped"),
    "fig1-chopped-2.json": snapshot(lookup, state(), path="chopped"),
}
for name, s in files.items():
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(s, f, indent=1)
        f.write("\n")
