//! Summary reuse (paper 4.5) on a recorded-like sequence of Figure 1 states.
//!
//! `sequence`: a table grows by one element per insert; after each insert, 10 lookups run
//! on the unchanged table (as a driver probing keys does). Inserts see a new state every
//! time (misses); lookups repeat it (hits). Measured with reuse and without.
//! `hit`: one reused invocation on a table of N elements (2N + 5 reachable objects),
//! whole pipeline (projection, abstraction, canonical form, lookup, translation) and the
//! isomorphism check alone.
//! `one list`: a miss on a call walking one list of n cells, n from 1,000 to 40,000.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use pspa::abstraction::AbstractState;
use pspa::memory_graph::MemoryGraph;
use pspa::session::{Session, SessionOptions};
use pspa::snapshot::{LoadedSnapshot, Snapshot};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fig1() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/fig1.c")
}

/// t1 with n elements, one per bucket (modulo 20, chained beyond), at a call of `function`.
fn state(n: usize, function: &str, id_base: u64) -> LoadedSnapshot {
    state_in(n, 20, function, id_base)
}

/// t1 with n elements spread over its first `buckets` buckets (1: one list).
fn state_in(n: usize, buckets: u64, function: &str, id_base: u64) -> LoadedSnapshot {
    let id = |x: u64| id_base + x;
    let mut objs = Vec::new();
    let mut heads: Vec<Option<u64>> = vec![None; 20];
    for i in 0..n as u64 {
        let e = 1000 + i;
        let b = (i % buckets) as usize;
        let next = match heads[b] {
            Some(h) => json!([{"object": id(h), "offset": 0}]),
            None => json!([{"null": true}]),
        };
        heads[b] = Some(e);
        objs.push(json!({"id": id(e), "site": "heap:table_insert:32", "size": 24, "type": "struct.elem_t",
            "pointers": [{"offset": 8, "targets": [{"object": id(e + 100_000), "offset": 0}]}, {"offset": 16, "targets": next}]}));
        objs.push(json!({"id": id(e + 100_000), "site": "heap:table_insert:33", "size": 10, "type": null, "pointers": []}));
    }
    let ptrs: Vec<Value> = heads
        .iter()
        .enumerate()
        .filter_map(|(b, h)| {
            h.map(|h| json!({"offset": 8 * b, "targets": [{"object": id(h), "offset": 0}]}))
        })
        .collect();
    objs.push(
        json!({"id": id(1), "site": "heap:table_alloc:13", "size": 16, "type": "struct.table_t",
        "pointers": [{"offset": 8, "targets": [{"object": id(2), "offset": 0}]}]}),
    );
    objs.push(json!({"id": id(2), "site": "heap:table_alloc:14", "size": 160, "type": "%struct.elem_t*", "pointers": ptrs}));
    for (i, g) in [".str", ".str.1", ".str.2"].iter().enumerate() {
        objs.push(json!({"id": id(5 + i as u64), "site": format!("global:{g}"), "size": 4, "type": null, "pointers": []}));
    }
    let mut args = vec![
        json!({"targets": [{"object": id(1), "offset": 0}]}),
        json!({"value": "int"}),
    ];
    if function == "table_insert" {
        args.push(json!({"targets": [{"object": id(7), "offset": 0}]}));
    }
    let v = json!({"schema": "pspa.snapshot/1", "module": "fig1.c", "call": {"function": function, "args": args},
        "globals": {".str": id(5), ".str.1": id(6), ".str.2": id(7)}, "objects": objs});
    let snap: Snapshot = serde_json::from_value(v).unwrap();
    LoadedSnapshot::new(PathBuf::from("bench.json"), snap, fig1()).unwrap()
}

fn bench(c: &mut Criterion) {
    let seq: Vec<LoadedSnapshot> = (1..=30)
        .flat_map(|n| {
            std::iter::once(state(n, "table_insert", 0))
                .chain((0..10).map(move |k| state(n, "table_lookup", k * 1_000_000)))
        })
        .collect();
    let mut g = c.benchmark_group("sequence (30 inserts, 300 lookups)");
    g.sample_size(10);
    for reuse in [true, false] {
        g.bench_function(if reuse { "with reuse" } else { "without reuse" }, |b| {
            b.iter(|| {
                let mut s = Session::open(
                    &fig1(),
                    &Default::default(),
                    SessionOptions {
                        reuse,
                        ..Default::default()
                    },
                )
                .unwrap();
                for st in &seq {
                    std::hint::black_box(s.analyze_snapshot(st).unwrap());
                }
            })
        });
    }
    g.finish();
    let mut s = Session::open(&fig1(), &Default::default(), Default::default()).unwrap();
    for st in &seq {
        s.analyze_snapshot(st).unwrap();
    }
    let r = s.reuse_stats();
    eprintln!(
        "sequence: {} invocations, {} analyses, reuse ratio {:.3}",
        r.invocations, r.analyses, r.reuse_ratio
    );

    let mut g = c.benchmark_group("hit");
    for n in [10usize, 100, 200] {
        let mut s = Session::open(&fig1(), &Default::default(), Default::default()).unwrap();
        s.analyze_snapshot(&state(n, "table_lookup", 0)).unwrap();
        let again = state(n, "table_lookup", 7_000_000);
        g.bench_with_input(
            BenchmarkId::new("whole invocation", 2 * n + 5),
            &again,
            |b, st| b.iter(|| assert!(s.analyze_snapshot(st).unwrap().stats.reused)),
        );
        let graph = MemoryGraph::project(&again, s.roots()).unwrap();
        // Snapshot types are named (`struct.table_t`): the program's layout of that name.
        let layouts = |t: &pspa::state::ObjType| match t {
            pspa::state::ObjType::Named(name) => s
                .prog
                .layouts
                .iter()
                .position(|l| l.name == name.trim_start_matches('%'))
                .map(|i| i as u32),
            _ => None,
        };
        let (abs, _) = AbstractState::abstract_graph(&s.prog, &graph, &layouts).unwrap();
        g.bench_with_input(
            BenchmarkId::new("isomorphism check only", 2 * n + 5),
            &abs,
            |b, abs| {
                b.iter(|| {
                    let cache = s.cache_mut();
                    let canon = cache.canonicalize(abs);
                    assert!(cache.lookup(abs, &canon, false).is_some());
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("fresh analysis", 2 * n + 5),
            &abs,
            |b, abs| {
                b.iter(|| {
                    std::hint::black_box(
                        pspa::local::analyze_call(&s.prog, abs, None).result(abs, false),
                    )
                })
            },
        );
    }
    g.finish();

    // A call that walks one list of n cells (issue 28: the cost must grow with the state,
    // not faster). A miss each time (reuse off): projection on demand, abstraction,
    // solving, mod/ref; the time per cell should stay flat as n grows.
    let mut g = c.benchmark_group("one list (table_lookup, no reuse)");
    g.sample_size(10);
    let mut s = Session::open(
        &fig1(),
        &Default::default(),
        SessionOptions {
            reuse: false,
            ..Default::default()
        },
    )
    .unwrap();
    for n in [1_000usize, 5_000, 10_000, 20_000, 40_000] {
        let st = state_in(n, 1, "table_lookup", 0);
        g.throughput(criterion::Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("cells", n), &st, |b, st| {
            b.iter(|| assert_eq!(s.analyze_snapshot(st).unwrap().refset.len(), 2 * n + 3))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
