//! The query API (src/query.rs) on the paper's Figure 1 state: `table_insert(t1, k, "foo")`
//! (examples/snapshots/fig1-insert.json). Objects: t1 = table @1 with bucket array @2 and
//! the even elements 100, 102, ... (value buffers 200, 202, ...); t2 = @3, array @4, odd
//! elements; ".str.2" = "foo" is @7; main's locals t1/t2 are @8/@9.
//!
//! What table_insert does (examples/fig1-table.h): table_lookup reads t->n, t->array,
//! the bucket and each element's k and next; if the key is missing it allocates a new
//! element (heap:table_insert:32) and its buffer (:33), writes their fields and the
//! bucket of t->array; then strcpy(e->v, v) writes the buffer of the found or new
//! element and reads "foo". The analysis is flow-insensitive: `e` holds both the found
//! and the new element, so the stores into the new one count for t1's existing elements
//! too. It never writes a table, anything of t2, or "foo".

use pspa::memory_graph::MemoryGraph;
use pspa::query::{Answer, LiveObject, Node};
use pspa::session::{CallOptions, Session, SessionOptions};
use pspa::snapshot::LoadedSnapshot;
use std::path::PathBuf;

/// The session (its program names the sites), the answer, and each snapshot object's site.
fn answer() -> (Session, Answer) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let snap = LoadedSnapshot::load(&root.join("examples/snapshots/fig1-insert.json")).unwrap();
    let mut s = Session::open(
        &root.join("examples/fig1.c"),
        &Default::default(),
        SessionOptions {
            points_to: true,
            ..Default::default()
        },
    )
    .unwrap();
    let g = MemoryGraph::project(&snap, s.roots()).unwrap();
    let (abs, result, _) = s.analyze_graph(&g, None, false).unwrap();
    let sites = snap
        .snap
        .objects
        .iter()
        .map(|o| (o.id, s.prog.object_by_label(&o.site).unwrap()))
        .collect();
    SITES.with(|m| *m.borrow_mut() = sites);
    (s, Answer::new(&abs, result))
}

thread_local! {
    static SITES: std::cell::RefCell<std::collections::HashMap<u64, u32>> = Default::default();
}

/// Object `id` of the snapshot, as KLEE would name it: its id and its allocation site.
fn existing(id: u64) -> LiveObject {
    LiveObject {
        id,
        site: SITES.with(|m| m.borrow().get(&id).copied()),
        existed: true,
    }
}

fn later(s: &Session, site: &str) -> LiveObject {
    LiveObject {
        id: 10_000,
        site: Some(s.prog.object_by_label(site).unwrap()),
        existed: false,
    }
}

#[test]
fn live_objects_map_to_their_nodes() {
    let (s, a) = answer();
    let p = &s.prog;
    assert!(matches!(a.node_of(p, &existing(2)), Node::Unique(_)));
    // t2's array and main's locals are not reachable from table_insert's state.
    assert_eq!(a.node_of(p, &existing(4)), Node::Unreached);
    assert_eq!(a.node_of(p, &existing(8)), Node::Unreached);
    let elem = s.prog.object_by_label("heap:table_insert:32").unwrap();
    assert_eq!(
        a.node_of(p, &later(&s, "heap:table_insert:32")),
        Node::Static(elem)
    );
    // A stack object made after the call started is a local of the call's activations.
    assert_eq!(a.node_of(p, &later(&s, "stack:main:t1")), Node::Local);
    // Objects KLEE makes itself (errno, argv...) have no site of the program: a library
    // model's static storage may stand for them, so nothing is known, new or not.
    assert_eq!(
        a.node_of(
            p,
            &LiveObject {
                id: 10_001,
                site: None,
                existed: false
            }
        ),
        Node::Unknown
    );
    // Even one the state reached (here t1's array, id 2, as if KLEE had made it: `&errno`
    // stored in a struct).
    assert_eq!(
        a.node_of(
            p,
            &LiveObject {
                id: 4,
                site: None,
                existed: true
            }
        ),
        Node::Unknown
    );
    assert_eq!(
        a.node_of(
            p,
            &LiveObject {
                id: 2,
                site: None,
                existed: true
            }
        ),
        Node::Unknown
    );
    assert!(a.may_read(
        p,
        &LiveObject {
            id: 3,
            site: None,
            existed: true
        },
        None
    ));
    assert!(!a.unknown());
}

#[test]
fn mod_and_ref_in_terms_of_live_objects() {
    let (s, a) = answer();
    let p = &s.prog;
    // Writes: t1's bucket array, t1's elements (through `e`), the buffers of t1's
    // elements (strcpy of a found element).
    assert!(a.may_write(p, &existing(2), Some((16, 8))));
    assert!(a.may_write(p, &existing(100), Some((16, 8))));
    assert!(a.may_write(p, &existing(200), None));
    // Never written: the tables, anything of t2, "foo".
    for id in [1, 3, 4, 101, 201, 7] {
        assert!(
            !a.may_write(p, &existing(id), None),
            "object {id} is not written"
        );
    }
    // Reads: t->n (bytes 0..4) and t->array (8..16) of t1, an element's k and next, "foo".
    assert!(a.may_read(p, &existing(1), Some((0, 4))) && a.may_read(p, &existing(1), Some((8, 8))));
    assert!(
        a.may_read(p, &existing(100), Some((0, 4))) && a.may_read(p, &existing(100), Some((16, 8)))
    );
    assert!(a.may_read(p, &existing(7), None));
    // Not read: t2, main's locals, ".str" (the callee does not name it).
    for id in [3, 4, 101, 8, 5] {
        assert!(
            !a.may_read(p, &existing(id), None),
            "object {id} is not read"
        );
    }
    // Objects allocated after the state: a new element is written (k, v, next); a new
    // table is not. Locals and unknown sites answer "may".
    assert!(a.may_write(p, &later(&s, "heap:table_insert:32"), Some((0, 4))));
    assert!(a.may_write(p, &later(&s, "heap:table_insert:33"), Some((3, 1))));
    assert!(!a.may_write(p, &later(&s, "heap:table_alloc:13"), None));
    assert!(a.may_write(p, &later(&s, "stack:main:t1"), None));
}

#[test]
fn pointers_point_only_into_what_the_call_reaches() {
    let (s, a) = answer();
    let p = &s.prog;
    let ptrs: Vec<u32> = a.pointers().collect();
    assert!(!ptrs.is_empty());
    // Every dereferenced pointer of table_insert, table_lookup and strcpy's model: none
    // may point into t2's objects; some pointer reads t1's bucket array.
    for &v in &ptrs {
        for id in [3, 4, 101, 201] {
            assert_eq!(
                a.may_point_to(p, v, &existing(id)),
                Some(false),
                "{} -> {id}",
                p.var_name(v)
            );
        }
    }
    assert!(ptrs
        .iter()
        .any(|&v| a.may_point_to(p, v, &existing(2)) == Some(true)));
    // A variable the call never dereferences has no set: the client must assume "may".
    let other = (0..p.num_vars).find(|v| !ptrs.contains(v)).unwrap();
    assert_eq!(a.may_point_to(p, other, &existing(2)), None);
}

/// KLEE runs `strcpy` (like `memcpy`) as code, byte by byte; the analysis replaces its
/// body by a model, so the resolution client asks for the sets of the call's arguments.
/// In table_insert only `strcpy(e->v, v)` dereferences a pointer into an element's value
/// buffer (table_lookup compares keys, table_insert stores the buffer's address into the
/// element, not through it), and only its source points to "foo": both sets must be kept.
#[test]
fn library_calls_keep_the_sets_of_their_arguments() {
    let (s, a) = answer();
    let p = &s.prog;
    let into = |id| {
        a.pointers()
            .filter(|&v| a.may_point_to(p, v, &existing(id)) == Some(true))
            .count()
    };
    assert!(into(200) > 0, "no set for strcpy's destination");
    assert!(into(7) > 0, "no set for strcpy's source");
    // t2's buffers stay out of every set.
    assert_eq!(into(201), 0);
}

#[test]
fn points_to_sets_are_kept_only_when_asked() {
    // Mod/ref clients (chopping, --pspa-check) do not pay for the points-to sets.
    let (_, with) = answer();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let snap = LoadedSnapshot::load(&root.join("examples/snapshots/fig1-insert.json")).unwrap();
    let mut s = Session::open(
        &root.join("examples/fig1.c"),
        &Default::default(),
        Default::default(),
    )
    .unwrap();
    let g = MemoryGraph::project(&snap, s.roots()).unwrap();
    let (abs, result, _) = s.analyze_graph(&g, None, false).unwrap();
    let without = Answer::new(&abs, result);
    assert_eq!(without.pointers().count(), 0);
    assert_eq!(without.modset(), with.modset());
    assert!(without.heap_bytes() < with.heap_bytes());
}

/// `call(f, arg)` of tests/fixtures/funcptr.c calls `f(arg)`. With `f` = ret_x nothing is
/// written. With `f` unknown (symbolic input in a function pointer) the callee, hence what
/// it writes, is unknown: every query must answer "may" though no set names `unknown`.
#[test]
fn a_call_through_an_unknown_pointer_may_touch_anything() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let module = root.join("tests/fixtures/funcptr.c");
    let answer_for = |f: serde_json::Value| {
        let objects: Vec<serde_json::Value> = ["x", "y", "z"]
            .iter()
            .enumerate()
            .map(|(i, g)| serde_json::json!({"id": i + 1, "site": format!("global:{g}"), "size": 4, "type": "i32", "pointers": []}))
            .collect();
        let v = serde_json::json!({"schema": "pspa.snapshot/1", "module": module.display().to_string(),
            "call": {"function": "call", "args": [{"targets": [f]}, {"targets": [{"object": 1, "offset": 0}]}]},
            "globals": {"x": 1, "y": 2, "z": 3},
            "objects": objects});
        let snap = LoadedSnapshot::new(
            PathBuf::from("generated.json"),
            serde_json::from_value(v).unwrap(),
            module.clone(),
        )
        .unwrap();
        let mut s = Session::open(&module, &Default::default(), Default::default()).unwrap();
        let g = MemoryGraph::project(&snap, s.roots()).unwrap();
        let (abs, result, _) = s.analyze_graph(&g, None, false).unwrap();
        let z = LiveObject {
            id: 3,
            site: s.prog.object_by_label("global:z"),
            existed: true,
        };
        let a = Answer::new(&abs, result);
        (a.unknown(), a.may_write(&s.prog, &z, None))
    };
    assert_eq!(
        answer_for(serde_json::json!({"function": "ret_x"})),
        (false, false)
    );
    assert_eq!(
        answer_for(serde_json::json!({"unknown": true})),
        (true, true)
    );
}

/// A value that may point anywhere (a symbolic pointer, a slot over the read budget) is the
/// `unknown` object, which points to itself. `use_box(b, q)` with b unknown and q = &slot,
/// slot = &x:
///   v = b->p   loads through unknown: v's set is {unknown}, so v may point to y;
///   w = *q     loads slot: w's set is {x}, exact: reading through unknown changes no
///              object, so w cannot point to y;
///   *w = 1     writes x only; the call reads through unknown, so it may read y.
/// `set_box(b, &y)` stores through unknown: any object may now hold &y, so no set can be
/// trusted and every query answers "may".
#[test]
fn reading_through_an_unknown_pointer_leaves_other_sets_exact() {
    let src = r#"
struct box { int *p; };
int x, y;
int *slot = &x;
int use_box(struct box *b, int **q) { int *v = b->p; int *w = *q; *w = 1; return *v; }
void set_box(struct box *b, int *t) { b->p = t; }
int main(void) { struct box bx = {&y}; return use_box(&bx, &slot); }
"#;
    let module = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("unknown_reads.c");
    std::fs::write(&module, src).unwrap();
    let globals = [
        ("x", 1, "i32", serde_json::json!([])),
        ("y", 2, "i32", serde_json::json!([])),
        (
            "slot",
            3,
            "i32*",
            serde_json::json!([{"offset": 0, "targets": [{"object": 1, "offset": 0}]}]),
        ),
    ];
    let answer_for = |function: &str, second: serde_json::Value| {
        let objects: Vec<serde_json::Value> = globals
            .iter()
            .map(|(g, id, ty, ptrs)| serde_json::json!({"id": id, "site": format!("global:{g}"), "size": if *ty == "i32*" { 8 } else { 4 }, "type": ty, "pointers": ptrs}))
            .collect();
        let v = serde_json::json!({"schema": "pspa.snapshot/1", "module": module.display().to_string(),
            "call": {"function": function, "args": [{"targets": [{"unknown": true}]}, {"targets": [second]}]},
            "globals": {"x": 1, "y": 2, "slot": 3},
            "objects": objects});
        generated_answer(&module, v)
    };
    let obj = |s: &Session, id: u64, g: &str| LiveObject {
        id,
        site: s.prog.object_by_label(&format!("global:{g}")),
        existed: true,
    };

    let (s, a) = answer_for("use_box", serde_json::json!({"object": 3, "offset": 0}));
    let (x, y) = (obj(&s, 1, "x"), obj(&s, 2, "y"));
    assert!(a.unknown());
    let ptrs: Vec<u32> = a.pointers().collect();
    // v: may point anywhere.
    assert!(ptrs
        .iter()
        .any(|&v| a.may_point_to(&s.prog, v, &y) == Some(true)));
    // w: x and not y.
    assert!(ptrs
        .iter()
        .any(|&v| a.may_point_to(&s.prog, v, &x) == Some(true)
            && a.may_point_to(&s.prog, v, &y) == Some(false)));
    assert!(a.may_write(&s.prog, &x, None));
    assert!(!a.may_write(&s.prog, &y, None));
    assert!(a.may_read(&s.prog, &y, None));

    let (s, a) = answer_for("set_box", serde_json::json!({"object": 2, "offset": 0}));
    let (x, slot) = (obj(&s, 1, "x"), obj(&s, 3, "slot"));
    assert!(a.may_write(&s.prog, &x, None));
    assert!(a.may_write(&s.prog, &slot, None));
    let ptrs: Vec<u32> = a.pointers().collect();
    assert!(!ptrs.is_empty());
    assert!(ptrs
        .iter()
        .all(|&v| a.may_point_to(&s.prog, v, &x) == Some(true)));
}

/// tests/fixtures/heap.c with `xmalloc` declared an allocator: the analysis's site for
/// `xmalloc(sizeof(struct pair))` is main's call (line 28), and the `malloc` inside
/// xmalloc's body (line 8), which is what KLEE records as the allocation site of every
/// object xmalloc returns, is in no set. An object of that site must answer "may" (it
/// could be any caller's), where without the declaration it is the ordinary static site.
#[test]
fn objects_allocated_inside_an_allocator_wrapper_are_unknown() {
    let module = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/heap.c");
    let node = |allocators: Vec<String>| {
        let s = Session::open(
            &module,
            &pspa::frontend::FrontOptions {
                allocators,
                ..Default::default()
            },
            Default::default(),
        )
        .unwrap();
        let inner = s.prog.object_by_label("heap:xmalloc:8").unwrap();
        assert!(!s
            .prog
            .wrapped_sites
            .contains(&s.prog.object_by_label("heap:main:23").unwrap()));
        let a = Answer::whole_program(
            &pspa::analysis::analyze(&s.prog),
            s.prog.function_by_name("main").unwrap(),
            None,
        );
        (
            s.prog.wrapped_sites.contains(&inner),
            a.node_of(
                &s.prog,
                &LiveObject {
                    id: 1,
                    site: Some(inner),
                    existed: true,
                },
            ),
        )
    };
    assert_eq!(node(vec!["xmalloc".into()]), (true, Node::Unknown));
    assert!(matches!(node(vec![]), (false, Node::Static(_))));
}

/// table_lookup(t2, k) (examples/snapshots/fig1-lookup.json): it reads t2 (@3), its bucket
/// array (@4) and t2's elements, allocates nothing and calls no library function.
fn lookup_answer() -> (Session, Answer) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let snap = LoadedSnapshot::load(&root.join("examples/snapshots/fig1-lookup.json")).unwrap();
    answer_of(&root.join("examples/fig1.c"), &snap)
}

#[test]
fn objects_klee_made_are_touched_only_as_themselves_or_through_library_storage() {
    let (s, a) = lookup_answer();
    let p = &s.prog;
    let klee = |id| LiveObject {
        id,
        site: None,
        existed: true,
    };
    // An object KLEE made (argv, errno) that the state did not let the call reach: the
    // call has no library call whose static storage could stand for it, and no heap site
    // of its own in its sets, so it neither reads nor writes it (this is what lets a
    // skipped call that never touches argv be told apart from one that may).
    assert!(!a.may_read(p, &klee(10_001), None));
    assert!(!a.may_write(p, &klee(10_001), None));
    // The table's bucket array (id 4: this snapshot's call is table_lookup(t2, k)), as if
    // KLEE had made it: the call reads it as itself (its unique node is in the ref-set),
    // and writes nothing. t1's (id 2) it cannot reach.
    assert!(a.may_read(p, &klee(4), None));
    assert!(!a.may_write(p, &klee(4), None));
    assert!(!a.may_read(p, &klee(2), None));
    // The table_insert answer allocates (heap sites in its sets), which may be a
    // library's storage: KLEE's objects stay "may" there (live_objects_map_to_their_nodes).
}

/// May-free sets on a state of tests/fixtures/free.c: holder h (id 1, `heap:main:22`)
/// with h->p = an int (id 2, `heap:main:23`) and h->list = a node (id 3, `heap:main:24`)
/// whose next is null. `release(h)` frees h->p: the int, not the holder (read only) nor the
/// node. `clear(h)` frees the list through drop_list (the node) and writes h->list: the
/// holder is written, not freed, and the int is untouched. Asked again on the same state
/// with renamed ids, the summary is reused and answers the same of the renamed objects.
#[test]
fn may_free_names_what_a_call_frees_and_nothing_it_only_writes() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let module = root.join("tests/fixtures/free.c");
    let mut s = Session::open(&module, &Default::default(), Default::default()).unwrap();
    let mut ask = |function: &str, base: u64| {
        let obj = |i: u64| base + i;
        let v = serde_json::json!({"schema": "pspa.snapshot/1", "module": module.display().to_string(),
            "call": {"function": function, "args": [{"targets": [{"object": obj(1), "offset": 0}]}]},
            "globals": {},
            "objects": [
                {"id": obj(1), "site": "heap:main:22", "size": 16, "type": "struct.holder",
                 "pointers": [{"offset": 0, "targets": [{"object": obj(2), "offset": 0}]},
                              {"offset": 8, "targets": [{"object": obj(3), "offset": 0}]}]},
                {"id": obj(2), "site": "heap:main:23", "size": 4, "type": "i32", "pointers": []},
                {"id": obj(3), "site": "heap:main:24", "size": 16, "type": "struct.node",
                 "pointers": [{"offset": 8, "targets": [{"null": true}]}]}]});
        let snap = LoadedSnapshot::new(
            PathBuf::from("generated.json"),
            serde_json::from_value(v).unwrap(),
            module.clone(),
        )
        .unwrap();
        let g = MemoryGraph::project(&snap, s.roots()).unwrap();
        let (abs, result, stats) = s.analyze_graph(&g, None, false).unwrap();
        let a = Answer::new(&abs, result);
        let live = |i: u64, site: &str| LiveObject {
            id: obj(i),
            site: s.prog.object_by_label(site),
            existed: true,
        };
        let (h, int, node) = (
            live(1, "heap:main:22"),
            live(2, "heap:main:23"),
            live(3, "heap:main:24"),
        );
        let p = &s.prog;
        (
            [a.may_free(p, &h), a.may_free(p, &int), a.may_free(p, &node)],
            a.may_write(p, &h, None),
            stats.reused,
        )
    };
    assert_eq!(ask("release", 0), ([false, true, false], false, false));
    assert_eq!(ask("clear", 0), ([false, false, true], true, false));
    assert_eq!(ask("clear", 500), ([false, false, true], true, true));
}

/// The lookup of fig1-chopped-2.json (on the path where the insert into t1 is skipped)
/// retargeted at t1 = @1: `table_lookup(t1, 1)`, in a temporary directory (kept alive by
/// the first value) with the module the snapshot names relative to itself.
fn lookup_of_t1() -> (tempfile::TempDir, LoadedSnapshot) {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut lookup: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("examples/snapshots/fig1-chopped-2.json")).unwrap(),
    )
    .unwrap();
    lookup["call"]["args"][0]["targets"][0]["object"] = 1.into();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lookup-t1.json");
    std::fs::write(&file, lookup.to_string()).unwrap();
    std::fs::copy(root.join("examples/fig1.c"), dir.path().join("fig1.c")).unwrap();
    let snap = LoadedSnapshot::load(&file).unwrap();
    (dir, snap)
}

/// A call analysed while an earlier skipped call is pending (paper 6.2): the skipped
/// `table_insert(t1, 1, "foo")` (fig1-chopped-1.json) may allocate an element
/// (heap:table_insert:32) and link it into t1's bucket array. `table_lookup(t1, 1)` is
/// analysed next on the same path, from a state that lacks the insert's writes (the
/// lookup of fig1-chopped-2.json, retargeted at t1 = @1). Once the insert is recovered,
/// the element it allocated is an object newer than the lookup's analysis: KLEE names it
/// by its static site. The lookup walks the bucket's chain and reads each element's key
/// and next, so it may read that new element: the merged post-state brought the site in,
/// and the answer must name it as the static site a client asks about (it named it as an
/// object of the state, which no live object maps to, and answered "no").
#[test]
fn a_call_after_a_pending_skip_may_read_what_the_skip_allocates() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ex = root.join("examples/snapshots");
    let mut s = Session::open(
        &root.join("examples/fig1.c"),
        &Default::default(),
        Default::default(),
    )
    .unwrap();
    let insert = LoadedSnapshot::load(&ex.join("fig1-chopped-1.json")).unwrap();
    let g = MemoryGraph::project(&insert, s.roots()).unwrap();
    s.analyze_graph(&g, Some("p"), true).unwrap();
    let (_dir, snap) = lookup_of_t1();
    let g = MemoryGraph::project(&snap, s.roots()).unwrap();
    let (abs, result, stats) = s.analyze_graph(&g, Some("p"), false).unwrap();
    assert_eq!(stats.merged_post_states, 1);
    let a = Answer::new(&abs, result);
    let elem = later(&s, "heap:table_insert:32");
    assert!(matches!(a.node_of(&s.prog, &elem), Node::Static(_)));
    assert!(
        a.may_read(&s.prog, &elem, None),
        "the lookup of t1 may read the element the pending insert allocates"
    );
    // The lookup writes nothing (it only reads), so not that element either.
    assert!(!a.may_write(&s.prog, &elem, None));
}

/// Calls of libc functions whose body a model replaces (tests/fixtures/libbody.c defines
/// memcpy, strlen and strcpy with C bodies, as KLEE's module with uclibc does), analysed
/// past-sensitively: the analysed call IS the replaced function, its formals hold the
/// state's arguments, and the answer is the model's (issue 25). Before the fix the body
/// was analysed instead: its byte-wise copy left `memcpy`'s post-state without the copied
/// pointers, and `strcpy` did not read its destination (the model, shared with strcat,
/// does). The whole-program answer for a call of strcpy (KLEE's SPA mode) was empty.
#[test]
fn a_call_of_a_replaced_function_answers_with_its_model() {
    use pspa::abstraction::AbsLoc;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let module = root.join("tests/fixtures/libbody.c");
    let mut s = Session::open(&module, &Default::default(), Default::default()).unwrap();
    let state = |v: serde_json::Value| {
        LoadedSnapshot::new(
            PathBuf::from("generated.json"),
            serde_json::from_value(v).unwrap(),
            module.clone(),
        )
        .unwrap()
    };
    // memcpy(&x, &y, 16), y = {&c, &d}.
    let snap = state(serde_json::json!({"schema": "pspa.snapshot/1",
        "module": module.display().to_string(),
        "call": {"function": "memcpy", "args": [
            {"targets": [{"object": 1, "offset": 0}]},
            {"targets": [{"object": 2, "offset": 0}]},
            {"value": "int"}]},
        "globals": {"c": 3, "d": 4},
        "objects": [
            {"id": 1, "site": "stack:main:x", "size": 16, "type": "struct.pair", "pointers": []},
            {"id": 2, "site": "stack:main:y", "size": 16, "type": "struct.pair",
             "pointers": [{"offset": 0, "targets": [{"object": 3, "offset": 0}]},
                          {"offset": 8, "targets": [{"object": 4, "offset": 0}]}]},
            {"id": 3, "site": "global:c", "size": 4, "type": "i32", "pointers": []},
            {"id": 4, "site": "global:d", "size": 4, "type": "i32", "pointers": []}]}));
    let g = MemoryGraph::project(&snap, s.roots()).unwrap();
    let (abs, result, _) = s.analyze_graph_after(&g, &[], true).unwrap();
    let labels = |set| pspa::local::CallResult::labels(&s.prog, &abs, set);
    assert_eq!(
        labels(&result.modset),
        ["stack:main:x@1.0", "stack:main:x@1.1"]
    );
    assert_eq!(
        labels(&result.refset),
        ["stack:main:y@2.0", "stack:main:y@2.1"]
    );
    // The post-state has y's pointers in x, field by field (Copy(0, 1)).
    let post = &result.post;
    let at = |uid: u64| {
        post.objects
            .iter()
            .position(|o| o.uid == Some(uid))
            .unwrap() as u32
    };
    let holds = |obj: u64, field: u32, target: u64| {
        post.edges.contains(&(
            AbsLoc::Field {
                obj: at(obj),
                field,
            },
            AbsLoc::Field {
                obj: at(target),
                field: 0,
            },
        ))
    };
    assert!(holds(1, 0, 3) && holds(1, 1, 4), "post-state {post:?}");
    assert!(!holds(1, 0, 4) && !holds(1, 1, 3));

    // strcpy(buf1, s1): writes buf1, reads both.
    let snap = state(serde_json::json!({"schema": "pspa.snapshot/1",
        "module": module.display().to_string(),
        "call": {"function": "strcpy", "args": [
            {"targets": [{"object": 1, "offset": 0}]},
            {"targets": [{"object": 2, "offset": 0}]}]},
        "globals": {"buf1": 1, "s1": 2},
        "objects": [
            {"id": 1, "site": "global:buf1", "size": 8, "type": "[8 x i8]", "pointers": []},
            {"id": 2, "site": "global:s1", "size": 8, "type": "[8 x i8]", "pointers": []}]}));
    let r = s.analyze_snapshot(&snap).unwrap();
    assert_eq!(r.modset, ["global:buf1@1.0"]);
    assert_eq!(r.refset, ["global:buf1@1.0", "global:s1@2.0"]);

    // SPA: the whole-program answer for a call of strcpy (`dup1`, `dup2` call it): writes
    // what its destinations may be, reads those and its sources, nothing else.
    let a = pspa::analysis::analyze(&s.prog);
    let strcpy = s.prog.function_by_name("strcpy").unwrap();
    let spa = Answer::whole_program(&a, strcpy, None);
    let obj = |site: &str| LiveObject {
        id: 1,
        site: Some(s.prog.object_by_label(site).unwrap()),
        existed: true,
    };
    let p = &s.prog;
    assert!(spa.may_write(p, &obj("global:buf1"), None));
    assert!(spa.may_write(p, &obj("global:buf2"), None));
    assert!(!spa.may_write(p, &obj("global:s1"), None));
    assert!(spa.may_read(p, &obj("global:s2"), Some((0, 1))));
    assert!(!spa.may_read(p, &obj("global:g1"), None));
}

/// The functions a call may run or call (`may_call`: chopping asks whether a skipped call
/// may end the path). table_insert (examples/fig1-table.h) calls table_lookup, malloc and
/// strcpy; it never calls table_alloc, nor main. The whole-program answer says the same
/// from the program's call graph.
#[test]
fn a_call_may_call_what_its_code_reaches_and_nothing_else() {
    let (s, a) = answer();
    let f = |n: &str| s.prog.function_by_name(n).unwrap();
    for g in ["table_insert", "table_lookup", "malloc", "strcpy"] {
        assert!(a.may_call(f(g), &[]), "table_insert may call {g}");
    }
    for g in ["table_alloc", "main"] {
        assert!(!a.may_call(f(g), &[]), "table_insert never calls {g}");
    }
    let whole = pspa::analysis::analyze(&s.prog);
    let spa = Answer::whole_program(&whole, f("table_insert"), None);
    let callees = &whole.solver.callees;
    assert!(spa.may_call(f("table_lookup"), callees) && spa.may_call(f("strcpy"), callees));
    assert!(!spa.may_call(f("table_alloc"), callees) && !spa.may_call(f("main"), callees));
}

/// The joined analysis read on demand gives the sets of the eager one (the reference),
/// whichever way the skipped call's post-state was made: the skipped
/// `table_insert(t1, 1, "foo")`, then `table_lookup(t1, 1)` on the same path (as in
/// `a_call_after_a_pending_skip_may_read_what_the_skip_allocates`). An on-demand post-state
/// lacks the contents of what the skipped call never read; those are in the later state.
#[test]
fn joined_analyses_on_demand_equal_the_eager_reference() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let ex = root.join("examples/snapshots");
    let insert = LoadedSnapshot::load(&ex.join("fig1-chopped-1.json")).unwrap();
    let (_dir, lookup) = lookup_of_t1();
    let labels =
        |s: &Session, abs: &pspa::abstraction::AbstractState, r: &pspa::local::CallResult| {
            (
                pspa::local::CallResult::labels(&s.prog, abs, &r.modset),
                pspa::local::CallResult::labels(&s.prog, abs, &r.refset),
            )
        };
    let mut outcomes = Vec::new();
    for (post_on_demand, later_on_demand) in
        [(false, false), (true, false), (false, true), (true, true)]
    {
        let mut s = Session::open(
            &root.join("examples/fig1.c"),
            &Default::default(),
            SessionOptions {
                reuse: false,
                ..Default::default()
            },
        )
        .unwrap();
        let post = if post_on_demand {
            let (_, _, r, _) = s
                .analyze_on_demand_after(
                    &mut |sess, g, what| pspa::session::fetch(&insert, sess.roots(), g, what),
                    &[],
                    CallOptions {
                        keep_post: true,
                        ..Default::default()
                    },
                )
                .unwrap();
            r.post
        } else {
            let g = MemoryGraph::project(&insert, s.roots()).unwrap();
            s.analyze_graph_after(&g, &[], true).unwrap().1.post
        };
        let got = if later_on_demand {
            let (_, abs, r, st) = s
                .analyze_on_demand_after(
                    &mut |sess, g, what| pspa::session::fetch(&lookup, sess.roots(), g, what),
                    &[&post],
                    CallOptions::default(),
                )
                .unwrap();
            assert_eq!(st.merged_post_states, 1);
            labels(&s, &abs, &r)
        } else {
            let g = MemoryGraph::project(&lookup, s.roots()).unwrap();
            let (abs, r, _) = s.analyze_graph_after(&g, &[&post], false).unwrap();
            labels(&s, &abs, &r)
        };
        // The element the pending insert may allocate is read by the lookup.
        assert!(
            got.1.iter().any(|l| l.starts_with("heap:table_insert:32")),
            "{got:?}"
        );
        outcomes.push(got);
    }
    assert!(outcomes.windows(2).all(|w| w[0] == w[1]), "{outcomes:#?}");
}

/// `Answer::pointed` on the objects that used to answer "may" whatever the sets: locals
/// made inside the call, and KLEE's own objects (no site of the program).
///   use(q): r = &loc[*q & 1], loc a local array of use; *r = 2; return *q.
/// - A local of use made after the call began (KLEE's alloca: site `stack:use:loc`): r's
///   set names that site, q's (g) does not.
/// - A KLEE object the state did not reach (a new id, existed): no pointer of the call
///   can hold its address (none was read from the state, and use calls nothing that
///   returns memory KLEE made): neither q nor r.
/// - A KLEE object the state reached (g itself, as if KLEE had made it): q's set names its
///   unique node, r's does not.
/// - A KLEE object made after the call began: nothing is known.
///
/// Then the same with a call of the host's `__ctype_b_loc` (declared; its model returns
/// static storage, `heap:use2:N`): the table pointer
/// loaded from that cell points into KLEE's ctype table: the solver makes the cell point
/// to the storage, so the pointer "cannot tell" about KLEE's objects, and only that
/// pointer. Unknown code needs no such rule: what it returns escapes (use3). A function
/// whose cell holds no pointer (`__errno_location`, use4) gets none.
#[test]
fn locals_and_klee_objects_are_answered_from_the_sets() {
    use pspa::query::Pointed;
    let src = r#"
extern const unsigned short **__ctype_b_loc(void);
extern int **get_cell(void);
int g[4];
int use(int *q) { int loc[2]; int *r = &loc[*q & 1]; *r = 2; return *q; }
int use2(int *q) { const unsigned short *t = *__ctype_b_loc(); return t[*q & 255]; }
int use3(int *q) { int *t = *get_cell(); return t[*q & 3] + *q; }
extern int *__errno_location(void);
int use4(int *q) { int *e = __errno_location(); *e = 0; return g[*q & 3]; }
int main(void) { return use(g) + use2(g) + use3(g) + use4(g); }
"#;
    let module = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pointed.c");
    std::fs::write(&module, src).unwrap();
    let snapshot = |function: &str| {
        serde_json::json!({"schema": "pspa.snapshot/1", "module": module.display().to_string(),
            "call": {"function": function, "args": [{"targets": [{"object": 1, "offset": 0}]}]},
            "globals": {"g": 1},
            "objects": [{"id": 1, "site": "global:g", "size": 16, "type": "[4 x i32]", "pointers": []}]})
    };
    let klee = |id: u64, existed: bool| LiveObject {
        id,
        site: None,
        existed,
    };

    let (s, a) = generated_answer(&module, snapshot("use"));
    let p = &s.prog;
    assert!(!a.unknown());
    let local = later(&s, "stack:use:loc");
    let g_obj = existing_site(&s, 1, "global:g");
    let ptrs: Vec<u32> = a.pointers().collect();
    let find = |pred: &dyn Fn(u32) -> bool| ptrs.iter().copied().find(|&v| pred(v));
    let q = find(&|v| a.pointed(p, v, &g_obj) == Some(Pointed::InSet)).expect("q names g");
    let r = find(&|v| a.pointed(p, v, &local) == Some(Pointed::InSet)).expect("r names loc");
    assert_ne!(q, r);
    // The local: r only.
    assert_eq!(a.pointed(p, q, &local), Some(Pointed::No));
    assert_eq!(a.may_point_to(p, q, &local), Some(false));
    // A KLEE object the state did not reach: neither.
    assert_eq!(a.pointed(p, q, &klee(50, true)), Some(Pointed::No));
    assert_eq!(a.pointed(p, r, &klee(50, true)), Some(Pointed::No));
    // One it reached (g, named @1 by the state): q names it, r cannot.
    assert_eq!(a.pointed(p, q, &klee(1, true)), Some(Pointed::InSet));
    assert_eq!(a.pointed(p, r, &klee(1, true)), Some(Pointed::No));
    // One made after the call began: nothing is known.
    for v in [q, r] {
        assert_eq!(
            a.pointed(p, v, &klee(10_002, false)),
            Some(Pointed::Unknown)
        );
    }

    // use2 calls the host's __ctype_b_loc, whose cell holds a pointer (`i16**`): the
    // solver makes the cell point to the model's storage itself, so t, loaded from it,
    // names that storage and "cannot tell" about any KLEE object (before, t's set was
    // empty and ruled KLEE's table out). q's set is g alone: it still rules out a KLEE
    // object the state did not reach.
    let (s, a) = generated_answer(&module, snapshot("use2"));
    let p = &s.prog;
    let g_obj = existing_site(&s, 1, "global:g");
    let ptrs: Vec<u32> = a.pointers().collect();
    let t: Vec<u32> = ptrs
        .iter()
        .copied()
        .filter(|&v| a.pointed(p, v, &klee(50, true)) == Some(Pointed::Unknown))
        .collect();
    // (The cell's pointer and t, whose set was empty.)
    assert!(!t.is_empty(), "t cannot tell");
    for &v in &t {
        assert_eq!(a.pointed(p, v, &klee(1, true)), Some(Pointed::Unknown));
    }
    for &v in &ptrs {
        assert_ne!(
            a.points_to(v),
            Some(&[][..]),
            "no dereferenced pointer has an empty set"
        );
    }
    let q = ptrs
        .iter()
        .copied()
        .find(|&v| a.pointed(p, v, &g_obj) == Some(Pointed::InSet))
        .expect("q names g");
    assert_eq!(a.pointed(p, q, &klee(50, true)), Some(Pointed::No));

    // use3 calls get_cell, which has no model (unknown code): the cell it returns escapes,
    // so t, loaded from it, names the call's object too: t "cannot tell" about a KLEE
    // object, while q, whose set is g alone, still rules one out.
    let (s, a) = generated_answer(&module, snapshot("use3"));
    let p = &s.prog;
    let g_obj = existing_site(&s, 1, "global:g");
    let ptrs: Vec<u32> = a.pointers().collect();
    let q = ptrs
        .iter()
        .copied()
        .find(|&v| {
            a.pointed(p, v, &g_obj) == Some(Pointed::InSet)
                && a.pointed(p, v, &klee(50, true)) == Some(Pointed::No)
        })
        .expect("q names g and rules out KLEE's objects");
    assert!(ptrs
        .iter()
        .any(|&v| v != q && a.pointed(p, v, &klee(50, true)) == Some(Pointed::Unknown)));

    // use4 calls the host's __errno_location, whose cell is an int: no pointer can be
    // loaded from it, so only e (whose set is the model's storage, standing for KLEE's
    // errno) cannot tell about a KLEE object; q's set is g alone and rules it out.
    let (s, a) = generated_answer(&module, snapshot("use4"));
    let p = &s.prog;
    let g_obj = existing_site(&s, 1, "global:g");
    let ptrs: Vec<u32> = a.pointers().collect();
    let named_g: Vec<u32> = ptrs
        .iter()
        .copied()
        .filter(|&v| a.pointed(p, v, &g_obj) == Some(Pointed::InSet))
        .collect();
    assert!(!named_g.is_empty());
    for &v in &named_g {
        assert_eq!(a.pointed(p, v, &klee(50, true)), Some(Pointed::No));
    }
    // (The others are the locals' slots at -O0, which rule it out too.)
    assert!(
        ptrs.iter()
            .any(|&v| a.pointed(p, v, &klee(50, true)) == Some(Pointed::Unknown)),
        "e cannot tell"
    );
}

fn existing_site(s: &Session, id: u64, site: &str) -> LiveObject {
    LiveObject {
        id,
        site: Some(s.prog.object_by_label(site).unwrap()),
        existed: true,
    }
}

/// The answer (points-to sets kept) of the call a generated snapshot `v` of `module` holds.
fn generated_answer(module: &std::path::Path, v: serde_json::Value) -> (Session, Answer) {
    let snap = LoadedSnapshot::new(
        PathBuf::from("generated.json"),
        serde_json::from_value(v).unwrap(),
        module.to_path_buf(),
    )
    .unwrap();
    answer_of(module, &snap)
}

/// The answer (points-to sets kept) of the call `snap` holds, in `module`.
fn answer_of(module: &std::path::Path, snap: &LoadedSnapshot) -> (Session, Answer) {
    let mut s = Session::open(
        module,
        &Default::default(),
        SessionOptions {
            points_to: true,
            ..Default::default()
        },
    )
    .unwrap();
    let g = MemoryGraph::project(snap, s.roots()).unwrap();
    let (abs, result, _) = s.analyze_graph(&g, None, false).unwrap();
    (s, Answer::new(&abs, result))
}

/// The whole-program answers the plugin falls back to are made one function at a time,
/// when first asked for, from the kept bitmaps (`WholeProgramAnswers`: making every
/// function's at once held 1 GB on SQLite). Each must equal the answer made directly from
/// the analysis (`Answer::whole_program`), location for location, for every function of two
/// programs (fig1's table, whose sets hold heap sites and string constants; heap.c's
/// allocator wrapper); only the functions asked for are made. With points-to sets kept
/// (resolution and WIT query them), every pointer of the program has the set the
/// analysis gives it.
#[test]
fn whole_program_answers_made_on_demand_equal_those_made_from_the_analysis() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for file in ["examples/fig1.c", "tests/fixtures/heap.c"] {
        let s = Session::open(&root.join(file), &Default::default(), Default::default()).unwrap();
        let a = pspa::analysis::analyze(&s.prog);
        let w = pspa::query::WholeProgramAnswers::new(&a, false);
        assert_eq!(w.made(), 0);
        let mut nonempty = 0;
        for f in 0..s.prog.functions.len() as pspa::facts::FuncId {
            let lazy = w.answer(f).unwrap();
            let direct = Answer::whole_program(&a, f, None);
            assert_eq!(
                lazy.modset(),
                direct.modset(),
                "{file}: mod of function {f}"
            );
            assert_eq!(
                lazy.refset(),
                direct.refset(),
                "{file}: ref of function {f}"
            );
            assert_eq!(
                lazy.freeset(),
                direct.freeset(),
                "{file}: free of function {f}"
            );
            assert!(lazy.is_whole_program());
            nonempty += usize::from(!lazy.modset().is_empty());
            assert_eq!(w.made(), f as usize + 1);
        }
        assert!(nonempty > 0, "{file}: some function writes memory");
        assert!(w
            .answer(s.prog.functions.len() as pspa::facts::FuncId)
            .is_none());
        let main = s.prog.function_by_name("main").unwrap();
        let with = pspa::query::WholeProgramAnswers::new(&a, true);
        let lazy = with.answer(main).unwrap();
        let direct = Answer::whole_program(&a, main, Some(Answer::whole_program_points_to(&a)));
        let mut sets = 0;
        for v in 0..s.prog.num_vars as pspa::facts::VarId {
            assert_eq!(
                lazy.points_to(v),
                direct.points_to(v),
                "{file}: variable {v}"
            );
            sets += usize::from(lazy.points_to(v).is_some_and(|p| !p.is_empty()));
        }
        assert!(sets > 0, "{file}: some pointer has a set");
        // Without them, no pointer has a set (clients then resolve as KLEE does).
        let bare = w.answer(main).unwrap();
        assert!((0..s.prog.num_vars).all(|v| bare.points_to(v).is_none()));
    }
}

/// A pointer loaded from memory KLEE filled with input may hold any address
/// (tests/fixtures/symbolic.c, `Effect::Symbolic`). The whole-program answer of put(),
/// which stores through one, may write any object, as a state's `unknown` makes a
/// past-sensitive answer say; set_b(), which meets no input, writes b and nothing else, and
/// get(), which reads the int field of the input, reads no other object. When
/// klee_make_symbolic was a plain write, put's mod set was empty: a skipped call of put
/// answered by the whole-program fallback would never have been recovered.
#[test]
fn a_whole_program_answer_that_writes_through_input_may_write_anything() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let s = Session::open(
        &root.join("tests/fixtures/symbolic.c"),
        &Default::default(),
        Default::default(),
    )
    .unwrap();
    let a = pspa::analysis::analyze(&s.prog);
    let w = pspa::query::WholeProgramAnswers::new(&a, false);
    let f = |n: &str| s.prog.function_by_name(n).unwrap();
    let live = |label: &str| LiveObject {
        id: 1,
        site: Some(s.prog.object_by_label(label).unwrap()),
        existed: false,
    };
    let put = w.answer(f("put")).unwrap();
    assert!(put.may_write(&s.prog, &live("global:a"), None));
    assert!(put.may_write(&s.prog, &live("global:b"), None));
    let set_b = w.answer(f("set_b")).unwrap();
    assert!(set_b.may_write(&s.prog, &live("global:b"), None));
    assert!(!set_b.may_write(&s.prog, &live("global:a"), None));
    let get = w.answer(f("get")).unwrap();
    assert!(get.may_read(&s.prog, &live("global:v"), None));
    assert!(!get.may_read(&s.prog, &live("global:a"), None));
    assert!(!get.may_write(&s.prog, &live("global:a"), None));
}

/// Two ways an input address (`Effect::Symbolic`) reaches beyond the call that uses it,
/// each on a program of its own. `poke` stores &a through one: in KLEE the store may land in
/// any cell, g's included, where the whole-program sets do not have it, so `use_g`'s answer
/// (g points nowhere statically) must say it may write anything, as every answer of that
/// program does. `call` calls through one: it may run any function, `exit` included, which
/// chopping asks before skipping a call (`may_call_any`).
#[test]
fn input_addresses_reach_past_their_own_calls() {
    let dir = std::env::temp_dir().join(format!("pspa-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let head = "void klee_make_symbolic(void *p, unsigned long n, const char *name);\n";
    let poke = dir.join("poke.c");
    std::fs::write(
        &poke,
        format!(
            "{head}struct s {{ int **pp; }};\nint a, b, *g;\nstruct s v;\n\
             void poke(struct s *x) {{ *x->pp = &a; }}\nvoid use_g(void) {{ *g = 1; }}\n\
             int main(void) {{ klee_make_symbolic(&v, sizeof v, \"v\"); poke(&v); use_g(); return b; }}\n"
        ),
    )
    .unwrap();
    let call = dir.join("call.c");
    std::fs::write(
        &call,
        format!(
            "{head}void exit(int);\nstruct t {{ void (*fn)(void); }};\nstruct t w;\nint b;\n\
             void call(struct t *x) {{ x->fn(); }}\nvoid quiet(void) {{ b = 1; }}\n\
             int main(void) {{ klee_make_symbolic(&w, sizeof w, \"w\"); call(&w); quiet(); if (b) exit(1); return 0; }}\n"
        ),
    )
    .unwrap();
    let s = Session::open(&poke, &Default::default(), Default::default()).unwrap();
    let a = pspa::analysis::analyze(&s.prog);
    let w = pspa::query::WholeProgramAnswers::new(&a, false);
    let use_g = w.answer(s.prog.function_by_name("use_g").unwrap()).unwrap();
    let a_obj = LiveObject {
        id: 1,
        site: Some(s.prog.object_by_label("global:a").unwrap()),
        existed: false,
    };
    assert!(use_g.may_write(&s.prog, &a_obj, None));

    let s = Session::open(&call, &Default::default(), Default::default()).unwrap();
    let a = pspa::analysis::analyze(&s.prog);
    let w = pspa::query::WholeProgramAnswers::new(&a, false);
    let f = |n: &str| s.prog.function_by_name(n).unwrap();
    let exit = f("exit");
    assert!(w
        .answer(f("call"))
        .unwrap()
        .may_call_any(&[exit], &w.callees));
    // `quiet` meets no input address: it calls nothing, and writes b only.
    let quiet = w.answer(f("quiet")).unwrap();
    assert!(!quiet.may_call_any(&[exit], &w.callees));
    let b_obj = LiveObject {
        id: 1,
        site: Some(s.prog.object_by_label("global:b").unwrap()),
        existed: false,
    };
    assert!(quiet.may_write(&s.prog, &b_obj, None));
    std::fs::remove_dir_all(&dir).ok();
}
