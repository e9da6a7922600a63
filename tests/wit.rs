//! WIT colours (src/wit.rs) on tests/wit/buffers.c, whole-program (SPA) and from the state
//! after `init` (PSPA). The expected colours are derived from the program:
//!
//! - `alloc_buf` is one allocation site for the three buffers a, b, c. SPA sees one
//!   object, `heap:alloc_buf:9` (a char buffer: field-insensitive), so `a[0] = 1`,
//!   `b[0] = 2`, `memcpy(c, ...)` and `strcpy(b, ...)` all write it: one colour.
//! - After `init` the state has three buffers, distinct unique objects. `work`'s writes
//!   through a, through b (the store and strcpy) and through c (memcpy) touch disjoint
//!   objects: three colours, the store into b sharing strcpy's.
//! - `cfg->flags = 3` writes field 2 of `struct conf`, which no other write of `work`
//!   touches: a colour of its own in both modes, apart from field 0 (`cfg->name`, written
//!   by init) under SPA: fields are objects.

use pspa::analysis;
use pspa::facts::{Program, WriteKind};
use pspa::frontend::FrontOptions;
use pspa::memory_graph::MemoryGraph;
use pspa::session::{Session, SessionOptions};
use pspa::snapshot::LoadedSnapshot;
use pspa::wit::{self, StoreColour, WitTables};
use std::path::PathBuf;

fn module() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/wit/buffers.c")
}

/// The line of the first source line containing `text`.
fn line_of(text: &str) -> u32 {
    let src = std::fs::read_to_string(module()).unwrap();
    src.lines().position(|l| l.contains(text)).unwrap() as u32 + 1
}

/// The writes of `function` at `line`.
fn at<'a>(t: &'a WitTables, function: &str, line: u32) -> Vec<&'a StoreColour> {
    t.stores
        .iter()
        .filter(|s| s.function == function && s.line == line)
        .collect()
}

fn colour_at(t: &WitTables, function: &str, line: u32) -> u32 {
    let v = at(t, function, line);
    assert!(!v.is_empty(), "no write of {function} at line {line}");
    assert!(
        v.iter().all(|s| s.colour == v[0].colour),
        "writes of line {line} differ: {v:?}"
    );
    v[0].colour
}

fn spa() -> WitTables {
    let prog = Program::from_file(&module(), &FrontOptions::default()).unwrap();
    let a = analysis::analyze(&prog);
    wit::colour(
        &prog,
        wit::Objects::Whole,
        &pspa::query::Answer::whole_program_points_to(&a),
    )
}

/// The state at the call of `work`: objects 1-3 the buffers, 4 the struct (cfg->name = a),
/// 5-8 the globals a, b, c, cfg.
fn work_state() -> LoadedSnapshot {
    let heap_buf = format!("heap:alloc_buf:{}", line_of("return malloc(n)"));
    let heap_cfg = format!("heap:init:{}", line_of("cfg = malloc"));
    let ptr = |o: u64| serde_json::json!([{"offset": 0, "targets": [{"object": o, "offset": 0}]}]);
    let objects = serde_json::json!([
        {"id": 1, "site": heap_buf, "size": 8, "type": "[8 x i8]", "pointers": []},
        {"id": 2, "site": heap_buf, "size": 8, "type": "[8 x i8]", "pointers": []},
        {"id": 3, "site": heap_buf, "size": 8, "type": "[8 x i8]", "pointers": []},
        {"id": 4, "site": heap_cfg, "size": 24, "type": "struct.conf", "pointers": ptr(1)},
        {"id": 5, "site": "global:a", "size": 8, "type": "i8*", "pointers": ptr(1)},
        {"id": 6, "site": "global:b", "size": 8, "type": "i8*", "pointers": ptr(2)},
        {"id": 7, "site": "global:c", "size": 8, "type": "i8*", "pointers": ptr(3)},
        {"id": 8, "site": "global:cfg", "size": 8, "type": "%struct.conf*", "pointers": ptr(4)},
    ]);
    let v = serde_json::json!({"schema": "pspa.snapshot/1", "module": module().display().to_string(),
        "call": {"function": "work", "args": []},
        "globals": {"a": 5, "b": 6, "c": 7, "cfg": 8},
        "objects": objects});
    LoadedSnapshot::new(
        PathBuf::from("work.json"),
        serde_json::from_value(v).unwrap(),
        module(),
    )
    .unwrap()
}

/// The colours from `work_state`, through the eager projection's analysis.
fn pspa() -> WitTables {
    let snap = work_state();
    let mut s = Session::open(
        &module(),
        &Default::default(),
        SessionOptions {
            points_to: true,
            ..Default::default()
        },
    )
    .unwrap();
    let g = MemoryGraph::project(&snap, s.roots()).unwrap();
    let (abs, result, _) = s.analyze_graph(&g, None, false).unwrap();
    wit::colour(&s.prog, wit::Objects::State(&abs), &result.points_to)
}

#[test]
fn one_allocation_site_is_one_colour_under_spa() {
    let t = spa();
    let (la, lb, lc, lf, ls) = (
        line_of("a[0] = 1"),
        line_of("b[0] = 2"),
        line_of("memcpy(c"),
        line_of("cfg->flags"),
        line_of("strcpy(b"),
    );
    let buf = colour_at(&t, "work", la);
    assert_eq!(colour_at(&t, "work", lb), buf);
    assert_eq!(colour_at(&t, "work", lc), buf);
    assert_eq!(colour_at(&t, "work", ls), buf);
    assert_ne!(colour_at(&t, "work", lf), buf);
    // The writes have the kinds the front end gave them (the module is compiled by clang,
    // whose memcpy is an intrinsic; strcpy is a library call).
    assert_eq!(at(&t, "work", lc)[0].kind, WriteKind::Intrinsic);
    assert_eq!(at(&t, "work", ls)[0].kind, WriteKind::Library);
    assert_eq!(at(&t, "work", la)[0].kind, WriteKind::Store);
    // The buffer object is field-insensitive; its label carries the colour.
    let site = format!("heap:alloc_buf:{}.*", line_of("return malloc(n)"));
    assert_eq!(t.objects[&site], buf);
    // Fields are objects: field 2 (flags) and field 0 (name, written by init) differ.
    let cfg = format!("heap:init:{}", line_of("cfg = malloc"));
    assert_eq!(t.objects[&format!("{cfg}.2")], colour_at(&t, "work", lf));
    assert_ne!(
        t.objects[&format!("{cfg}.0")],
        t.objects[&format!("{cfg}.2")]
    );
    assert_eq!(
        t.objects[&format!("{cfg}.0")],
        colour_at(&t, "init", line_of("cfg->name = a"))
    );
    // Field 1 (path) is written by nothing: a colour no write has.
    let path = t.objects[&format!("{cfg}.1")];
    assert!(t.stores.iter().all(|s| s.colour != path));
    // Heap colours: the buffers' object and the struct's three fields.
    assert_eq!(t.heap_colours, 4);
    assert_eq!(t.unknown_writes, 0);
}

#[test]
fn the_state_after_initialization_tells_the_buffers_apart() {
    let t = pspa();
    let (la, lb, lc, lf, ls) = (
        line_of("a[0] = 1"),
        line_of("b[0] = 2"),
        line_of("memcpy(c"),
        line_of("cfg->flags"),
        line_of("strcpy(b"),
    );
    let (ca, cb, cc) = (
        colour_at(&t, "work", la),
        colour_at(&t, "work", lb),
        colour_at(&t, "work", lc),
    );
    assert!(ca != cb && cb != cc && ca != cc, "{ca} {cb} {cc}");
    assert_eq!(colour_at(&t, "work", ls), cb);
    let cf = colour_at(&t, "work", lf);
    assert!(![ca, cb, cc].contains(&cf));
    // Only work's writes: init is not reached from the state.
    assert!(
        t.stores.iter().all(|s| s.function == "work"),
        "{:?}",
        t.stores
    );
    assert!(at(&t, "init", line_of("cfg->name = a")).is_empty());
    // The unique objects carry the colours: buffer 2 has b's.
    let b_obj = t
        .objects
        .iter()
        .find(|(l, _)| l.starts_with("heap:alloc_buf:") && l.contains("@2"))
        .unwrap();
    assert_eq!(*b_obj.1, cb);
    // More heap colours than SPA's 4: three buffers and three fields of the existing
    // struct, besides the static sites of objects allocated later.
    assert!(t.heap_colours >= 6 + 4, "{}", t.heap_colours);
    assert!(t.heap_colours > spa().heap_colours);
}

#[test]
fn the_tables_print_as_json_and_csv() {
    let t = spa();
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(v["schema"], "pspa.wit/1");
    assert_eq!(v["colours"].as_u64().unwrap() as usize, t.colours);
    assert!(v.get("transitions").is_none());
    let csv = t.csv();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[1], "location,colour");
    let stores_at = lines.iter().position(|l| *l == "# stores").unwrap();
    assert_eq!(stores_at, 2 + t.objects.len());
    assert_eq!(lines.len(), stores_at + 2 + t.stores.len());
}

/// The workflows the CLI and the KLEE plugin share: `Session::wit_at` (a fresh analysis
/// of everything the call reaches, with its points-to sets) gives the tables of the eager
/// projection's analysis, and `wit::whole_program` those of `spa()`.
#[test]
fn shared_workflows_give_the_same_tables() {
    let json = |t: &WitTables| serde_json::to_value(t).unwrap();
    let snap = work_state();
    let mut s = Session::open(&module(), &Default::default(), Default::default()).unwrap();
    let (_, colours) = s
        .wit_at(
            &mut |sess, g, what| pspa::session::fetch(&snap, sess.roots(), g, what),
            &[],
        )
        .unwrap();
    assert_eq!(json(&colours.tables), json(&pspa()));
    let prog = Program::from_file(&module(), &FrontOptions::default()).unwrap();
    assert_eq!(json(&wit::whole_program(&prog).tables), json(&spa()));
}
