//! Reuse of summaries by isomorphism (paper 4.5): a reused result must be exactly what a
//! fresh analysis computes, isomorphic states must be recognised whatever their ids and
//! object order, and no reuse may be taken between states that are not isomorphic.

use proptest::prelude::*;
use pspa::local::{CallResult, ResLoc};
use pspa::session::{fetch, CallOptions, ModRefReport, OverCallBudget, Session, SessionOptions};
use pspa::snapshot::{LoadedSnapshot, Snapshot};
use serde_json::{json, Value};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fig1() -> PathBuf {
    root().join("examples/fig1.c")
}

/// Every session keeps the points-to sets of dereferenced pointers, so that reuse is
/// checked for the clients' queries too, not only for mod/ref.
fn session() -> Session {
    session_with(SessionOptions::default())
}

/// A session as `options` say, with the points-to sets kept.
fn session_with(options: SessionOptions) -> Session {
    let options = SessionOptions {
        points_to: true,
        ..options
    };
    Session::open(&fig1(), &Default::default(), options).unwrap()
}

fn load(v: &Value) -> LoadedSnapshot {
    let snap: Snapshot = serde_json::from_value(v.clone()).unwrap();
    LoadedSnapshot::new(PathBuf::from("generated.json"), snap, fig1()).unwrap()
}

fn analyze(s: &mut Session, v: &Value) -> ModRefReport {
    s.analyze_snapshot(&load(v)).unwrap()
}

/// What a fresh analysis (no cache, every reachable object read first: the reference
/// the on-demand projection and reuse are checked against) says about a state.
fn fresh(v: &Value) -> ModRefReport {
    let mut s = session_with(SessionOptions {
        reuse: false,
        on_demand: false,
        ..Default::default()
    });
    analyze(&mut s, v)
}

/// The report on `b` analysed right after `a` (so it may reuse a's summary), and the
/// report of a fresh analysis of `b`.
fn after_and_fresh(a: &Value, b: &Value) -> (ModRefReport, ModRefReport) {
    let mut s = session();
    analyze(&mut s, a);
    (analyze(&mut s, b), fresh(b))
}

/// A Figure 1 state at `table_insert(t1, k, "foo")`: t1 and t2 with the given elements.
/// Each element is (table 1 or 2, bucket 0..19, typed); elements of one bucket are chained
/// in order. Ids are `id_of` of the fixed ids of make-fig1.py; `shuffle` reorders objects.
fn fig1_state(elems: &[(u8, u8, bool)], id_of: &dyn Fn(u64) -> u64, shuffle: &[usize]) -> Value {
    let mut objs: Vec<Value> = Vec::new();
    let mut buckets: [Vec<Vec<u64>>; 2] = [vec![Vec::new(); 20], vec![Vec::new(); 20]];
    for (i, &(table, bucket, _)) in elems.iter().enumerate() {
        buckets[(table - 1) as usize][bucket as usize].push(100 + i as u64);
    }
    for (i, &(_, _, typed)) in elems.iter().enumerate() {
        let e = 100 + i as u64;
        // The next element in the same bucket's chain, if any.
        let chain = buckets.iter().flatten().find(|c| c.contains(&e)).unwrap();
        let pos = chain.iter().position(|&x| x == e).unwrap();
        let next = match chain.get(pos + 1) {
            Some(&n) => json!([{"object": id_of(n), "offset": 0}]),
            None => json!([{"null": true}]),
        };
        objs.push(json!({"id": id_of(e), "site": "heap:table_insert:32", "size": 24,
            "type": if typed { json!("struct.elem_t") } else { Value::Null },
            "pointers": [{"offset": 8, "targets": [{"object": id_of(e + 100), "offset": 0}]}, {"offset": 16, "targets": next}]}));
        objs.push(json!({"id": id_of(e + 100), "site": "heap:table_insert:33", "size": 10, "type": null, "pointers": []}));
    }
    for (t, (table, array)) in [(1u64, 2u64), (3, 4)].iter().enumerate() {
        objs.push(json!({"id": id_of(*table), "site": "heap:table_alloc:13", "size": 16, "type": "struct.table_t",
            "pointers": [{"offset": 8, "targets": [{"object": id_of(*array), "offset": 0}]}]}));
        let ptrs: Vec<Value> = buckets[t]
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_empty())
            .map(|(b, c)| json!({"offset": 8 * b, "targets": [{"object": id_of(c[0]), "offset": 0}]}))
            .collect();
        objs.push(json!({"id": id_of(*array), "site": "heap:table_alloc:14", "size": 160, "type": "%struct.elem_t*", "pointers": ptrs}));
    }
    for (i, (g, size)) in [(".str", 7), (".str.1", 4), (".str.2", 4)]
        .iter()
        .enumerate()
    {
        objs.push(json!({"id": id_of(5 + i as u64), "site": format!("global:{g}"), "size": size, "type": format!("[{size} x i8]"), "pointers": []}));
    }
    // Reorder: object i goes to position key (shuffle[i mod len], i): a permutation.
    let mut keyed: Vec<((usize, usize), Value)> = objs
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            (
                (
                    shuffle.get(i % shuffle.len().max(1)).copied().unwrap_or(0),
                    i,
                ),
                o,
            )
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    let list: Vec<Value> = keyed.into_iter().map(|(_, o)| o).collect();
    json!({"schema": "pspa.snapshot/1", "module": fig1().display().to_string(),
        "call": {"function": "table_insert", "args": [{"targets": [{"object": id_of(1), "offset": 0}]}, {"value": "int"},
                 {"targets": [{"object": id_of(7), "offset": 0}]}]},
        "globals": {".str": id_of(5), ".str.1": id_of(6), ".str.2": id_of(7)},
        "objects": list})
}

/// Rename the `@ID` parts of labels with `f` (to compare results across renamed states).
fn rename(labels: &[String], f: &dyn Fn(u64) -> u64) -> Vec<String> {
    let mut v: Vec<String> = labels
        .iter()
        .map(|l| {
            let (head, field) = l.rsplit_once('.').unwrap();
            match head.rsplit_once('@') {
                Some((site, id)) => format!("{}@{}.{}", site, f(id.parse().unwrap()), field),
                None => l.clone(),
            }
        })
        .collect();
    v.sort();
    v
}

fn sample() -> Vec<(u8, u8, bool)> {
    vec![
        (1, 0, true),
        (1, 3, true),
        (1, 3, true),
        (2, 1, true),
        (2, 5, false),
        (1, 7, false),
    ]
}

#[test]
fn permuted_ids_and_order_are_reused_with_translated_results() {
    let elems = sample();
    let a = fig1_state(&elems, &|id| id, &[]);
    // Ids scrambled by an affine map, objects in reverse order.
    let perm = |id: u64| 1000 + (id * 7919) % 997;
    let n = a["objects"].as_array().unwrap().len();
    let rev: Vec<usize> = (0..n).rev().collect(); // object i gets key n-1-i: reversed
    let b = fig1_state(&elems, &perm, &rev);
    let mut s = session();
    let r0 = analyze(&mut s, &a);
    // Later calls fetch along the fields the first one read, from the start: one round,
    // whose partial state is the first call's last (so it is reused).
    let ra = analyze(&mut s, &a);
    let rb = analyze(&mut s, &b);
    assert!(
        !r0.stats.reused && ra.stats.reused && rb.stats.reused,
        "the same and the permuted state must reuse the first"
    );
    assert_eq!(
        (ra.modset.clone(), ra.refset.clone()),
        (r0.modset.clone(), r0.refset.clone())
    );
    let fb = fresh(&b);
    assert_eq!(rb.modset, fb.modset);
    assert_eq!(rb.refset, fb.refset);
    assert_eq!(rb.freeset, fb.freeset);
    // And it is the first result with ids renamed.
    assert_eq!(rename(&ra.modset, &perm), rb.modset);
    // The same for every dereferenced pointer's set. table_insert dereferences `t`
    // (t1 = table_alloc:13@1) and the bucket array (table_alloc:14@2) at least: the sets
    // name unique sites, so a wrong translation would show.
    let (pa, pb, pf) = (
        ra.points_to.as_ref().unwrap(),
        rb.points_to.as_ref().unwrap(),
        fb.points_to.as_ref().unwrap(),
    );
    assert_eq!(pb, pf);
    let flat = |p: &std::collections::BTreeMap<String, Vec<String>>| {
        p.values().flatten().cloned().collect::<Vec<_>>()
    };
    assert!(
        flat(pa).iter().any(|l| l == "heap:table_alloc:13@1.1")
            && flat(pa)
                .iter()
                .any(|l| l.starts_with("heap:table_alloc:14@2.")),
        "{pa:?}"
    );
    for (v, set) in pa {
        assert_eq!(&rename(set, &perm), &pb[v], "{v}");
    }
    // Each round of the first call was solved once; the others took their one round from
    // the cache.
    assert_eq!(s.reuse_stats().reuse_hits, 2);
    assert_eq!(s.reuse_stats().solver_runs as usize, r0.stats.fetch_rounds);
    assert_eq!(s.reuse_stats().analyses, 1);
    assert_eq!((rb.stats.fetch_rounds, ra.stats.fetch_rounds), (1, 1));
    assert!(
        r0.stats.fetch_rounds > 1,
        "the first call learns its fields in rounds"
    );
}

/// Mutations that change the abstract state: never reused; the result is the fresh one.
#[test]
fn non_isomorphic_states_are_not_reused() {
    let base = fig1_state(&sample(), &|id| id, &[]);
    let obj = |v: &mut Value, id: u64| -> usize {
        v["objects"]
            .as_array()
            .unwrap()
            .iter()
            .position(|o| o["id"] == json!(id))
            .unwrap()
    };
    let mut muts: Vec<(&str, Value)> = Vec::new();
    // One more edge: element 100 (t1, bucket 0) now has a successor, element 105.
    let mut m = base.clone();
    let i = obj(&mut m, 100);
    m["objects"][i]["pointers"][1]["targets"] = json!([{"object": 105, "offset": 0}]);
    muts.push(("edge", m));
    // One field layout: element 100 untyped (field-insensitive).
    let mut m = base.clone();
    let i = obj(&mut m, 100);
    m["objects"][i]["type"] = Value::Null;
    muts.push(("layout", m));
    // One site: element 100 comes from another allocation site.
    let mut m = base.clone();
    let i = obj(&mut m, 100);
    m["objects"][i]["site"] = json!("heap:main:51");
    muts.push(("site", m));
    // Two objects merged into one: t1's bucket 7 holds element 100 instead of element
    // 105 (which, with its buffer, drops out of the projection).
    let mut m = base.clone();
    let i = obj(&mut m, 2);
    for p in m["objects"][i]["pointers"].as_array_mut().unwrap() {
        if p["offset"] == json!(56) {
            p["targets"] = json!([{"object": 100, "offset": 0}]);
        }
    }
    muts.push(("merge", m));
    // The argument v points to "..." instead of "foo".
    let mut m = base.clone();
    m["call"]["args"][2]["targets"] = json!([{"object": 6, "offset": 0}]);
    muts.push(("root", m));
    for (name, m) in muts {
        let mut s = session();
        analyze(&mut s, &base);
        let r = analyze(&mut s, &m);
        assert!(!r.stats.reused, "{name}: reused a non-isomorphic state");
        let f = fresh(&m);
        assert_eq!(
            (r.modset, r.refset, r.freeset),
            (f.modset, f.refset, f.freeset),
            "{name}"
        );
    }
}

/// deep.c's update(l, len, v): the cached state has v pointing to a scratch buffer of its
/// own (an object of the same site as the nodes' buffers, reachable only from v); the new
/// state has v pointing to the first node's own buffer. A matcher that maps objects one
/// root at a time, without checking injectivity, maps both the cached v-buffer and the
/// cached node-buffer onto the one new buffer. Ours must refuse.
#[test]
fn non_injective_match_is_rejected() {
    let src = root().join("tests/pspa/deep.c");
    let node = |id: u64, next: u64, items: u64, scratch: u64| {
        json!({"id": id, "site": "heap:make_list:24", "size": 40, "type": "struct.node", "pointers": [
            {"offset": 0, "targets": [{"object": next, "offset": 0}]},
            {"offset": 8, "targets": [{"object": items, "offset": 0}]},
            {"offset": 24, "targets": [{"function": "on_a"}]},
            {"offset": 32, "targets": [{"object": scratch, "offset": 0}]}]})
    };
    let items = |id: u64| json!({"id": id, "site": "heap:make_list:25", "size": 48, "type": "struct.item", "pointers": []});
    let buf = |id: u64| json!({"id": id, "site": "heap:make_list:28", "size": 8, "type": null, "pointers": []});
    let counter =
        json!({"id": 1, "site": "global:counter_b", "size": 4, "type": "i32", "pointers": []});
    let state = |v_target: u64, extra: bool| {
        let mut objs = vec![counter.clone(), node(10, 10, 11, 12), items(11), buf(12)];
        if extra {
            objs.push(buf(13));
        }
        json!({"schema": "pspa.snapshot/1", "module": src.display().to_string(),
            "call": {"function": "update", "args": [{"targets": [{"object": 10, "offset": 0}]}, {"value": "int"},
                     {"targets": [{"object": v_target, "offset": 0}]}]},
            "globals": {"counter_b": 1}, "objects": objs})
    };
    let open = || Session::open(&src, &Default::default(), Default::default()).unwrap();
    let go = |s: &mut Session, v: &Value| {
        let snap: Snapshot = serde_json::from_value(v.clone()).unwrap();
        s.analyze_snapshot(
            &LoadedSnapshot::new(PathBuf::from("g.json"), snap, src.clone()).unwrap(),
        )
        .unwrap()
    };
    let mut s = open();
    go(&mut s, &state(13, true));
    let r = go(&mut s, &state(12, false));
    assert!(!r.stats.reused, "two cached objects matched to one");
    // Same states the other way round: one new object would need two cached ones.
    let mut s = open();
    go(&mut s, &state(12, false));
    assert!(!go(&mut s, &state(13, true)).stats.reused);
}

#[test]
fn cache_is_bounded_lru() {
    // One entry per call: every object read first (on demand, each round is an entry).
    let mut s = session_with(SessionOptions {
        on_demand: false,
        cache_entries: 2,
        ..Default::default()
    });
    let states: Vec<Value> = (0..3)
        .map(|k| fig1_state(&vec![(1, 0, true); k + 1], &|id| id, &[]))
        .collect();
    for st in &states {
        analyze(&mut s, st);
    }
    // Three distinct states, two entries: the oldest (state 0) was evicted.
    assert_eq!(s.reuse_stats().evictions, 1);
    assert!(analyze(&mut s, &states[2]).stats.reused);
    assert!(!analyze(&mut s, &states[0]).stats.reused);
}

fn elems_strategy() -> impl Strategy<Value = Vec<(u8, u8, bool)>> {
    prop::collection::vec((1u8..=2, 0u8..4, any::<bool>()), 0..10)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    /// Renamed and reordered copies of a random state are reused, with exactly the
    /// fresh result.
    #[test]
    fn reuse_equals_recomputation_on_renamed_states(elems in elems_strategy(), mul in 1u64..500, order in prop::collection::vec(0usize..64, 1..64)) {
        let a = fig1_state(&elems, &|id| id, &[]);
        let perm = move |id: u64| 10_000 + id * (2 * mul + 1);
        let b = fig1_state(&elems, &perm, &order);
        let (rb, fb) = after_and_fresh(&a, &b);
        prop_assert_eq!(&rb.modset, &fb.modset);
        prop_assert_eq!(&rb.refset, &fb.refset);
        prop_assert_eq!(&rb.freeset, &fb.freeset);
        prop_assert_eq!(&rb.points_to, &fb.points_to);
        prop_assert!(!rb.points_to.as_ref().unwrap().is_empty());
        prop_assert!(rb.stats.reused);
    }

    /// Any two random states: whenever the second reuses the first, the result is the
    /// fresh one (a wrong reuse would show as a difference).
    #[test]
    fn reuse_is_never_wrong(e1 in elems_strategy(), e2 in elems_strategy()) {
        let a = fig1_state(&e1, &|id| id, &[]);
        let b = fig1_state(&e2, &|id| id + 50_000, &[]);
        let (rb, fb) = after_and_fresh(&a, &b);
        prop_assert_eq!(&rb.modset, &fb.modset);
        prop_assert_eq!(&rb.refset, &fb.refset);
        prop_assert_eq!(&rb.freeset, &fb.freeset);
        prop_assert_eq!(&rb.points_to, &fb.points_to);
    }
}

#[test]
fn code_over_the_work_budget_fails_at_once_the_next_time() {
    // A budget of one points-to element stops the first solve; the next call over the
    // same code (same callee, no function pointers in the state) fails without solving.
    let mut s = session_with(SessionOptions {
        max_work: Some(1),
        ..Default::default()
    });
    let st = fig1_state(&sample(), &|id| id, &[]);
    let e1 = s.analyze_snapshot(&load(&st)).unwrap_err().to_string();
    let runs = s.reuse_stats().solver_runs;
    let e2 = s.analyze_snapshot(&load(&st)).unwrap_err().to_string();
    assert!(
        e1.contains("work budget") && !e1.contains("earlier call"),
        "{e1}"
    );
    assert!(e2.contains("known from an earlier call"), "{e2}");
    assert_eq!(
        s.reuse_stats().solver_runs,
        runs,
        "the second call ran no solver"
    );
    assert_eq!(s.reuse_stats().over_budget, 2);
}

/// A session whose whole budget is out of reach and whose trial budget is one element (any
/// solve goes over it), and the sample state at a call of table_insert.
fn trial_session(reuse: bool) -> (Session, Value) {
    let s = session_with(SessionOptions {
        max_work: Some(1_000_000_000),
        trial_work: Some(1),
        reuse,
        ..Default::default()
    });
    (s, fig1_state(&sample(), &|id| id, &[]))
}

#[test]
fn a_function_over_the_trial_budget_gets_the_whole_budget_next_time() {
    // A trial budget of one element stops the first solve of table_insert (it fails, as
    // over the work budget, and is not marked: no "earlier call" message); its next calls
    // get the session's whole budget, out of reach, and answer as a fresh solve does.
    // Reuse is off, so that each later call solves: the trial never applies again.
    let (mut s, st) = trial_session(false);
    let e = analyze_with(&mut s, &st, CallOptions::default()).unwrap_err();
    assert!(e.to_string().contains("trial budget"), "{e:#}");
    assert!(!e.to_string().contains("earlier call"), "{e:#}");
    assert_eq!(
        (s.reuse_stats().over_budget, s.reuse_stats().over_trial),
        (1, 1)
    );
    let r = sets(&analyze_with(&mut s, &st, CallOptions::default()).unwrap());
    assert_eq!(r, sets(&fresh_result(&st)));
    assert!(!r.0.is_empty(), "table_insert writes");
    let runs = s.reuse_stats().solver_runs;
    assert_eq!(
        sets(&analyze_with(&mut s, &st, CallOptions::default()).unwrap()),
        r
    );
    assert!(s.reuse_stats().solver_runs > runs, "the third call solved");
    assert_eq!(s.reuse_stats().over_budget, 1, "only the first call failed");
}

#[test]
fn a_clients_own_budget_holds_as_given_under_a_trial() {
    // A call with a budget of its own (a client's: resolution's lazy snapshots) is not
    // given the trial budget, even when its own is looser than the session's (the
    // session's then bounds it): with a trial of one element it is solved, fails nothing,
    // and leaves the function untried, so the session's first call of it still goes over
    // the trial.
    let (mut s, st) = trial_session(false);
    let own = CallOptions {
        max_work: Some(2_000_000_000),
        ..Default::default()
    };
    let r = sets(&analyze_with(&mut s, &st, own).unwrap());
    assert_eq!(r, sets(&fresh_result(&st)));
    assert_eq!(s.reuse_stats().over_budget, 0);
    let e = analyze_with(&mut s, &st, CallOptions::default()).unwrap_err();
    assert!(e.to_string().contains("trial budget"), "{e:#}");
}

#[test]
fn callers_of_a_function_over_the_trial_budget_get_the_whole_budget() {
    // table_insert calls table_lookup directly (fig1-table.h), so its slice holds
    // table_lookup's code. table_lookup's first call goes over a trial budget of one
    // element; table_insert's first call then gets the whole budget and is solved (with
    // the trial, any solve of it would go over: the first test above).
    let (mut s, insert) = trial_session(true);
    let mut lookup = insert.clone();
    lookup["call"]["function"] = json!("table_lookup");
    lookup["call"]["args"] = json!([{"targets": [{"object": 1, "offset": 0}]}, {"value": "int"}]);
    let e = analyze_with(&mut s, &lookup, CallOptions::default()).unwrap_err();
    assert!(e.to_string().contains("trial budget"), "{e:#}");
    let r = sets(&analyze_with(&mut s, &insert, CallOptions::default()).unwrap());
    assert_eq!(r, sets(&fresh_result(&insert)));
    assert_eq!(s.reuse_stats().over_trial, 1);
}

#[test]
fn a_trial_budget_not_below_the_whole_one_is_off() {
    // With a session budget of one element the trial (larger) changes nothing: the first
    // call goes over the whole budget and marks the function, the second fails at once.
    let mut s = session_with(SessionOptions {
        max_work: Some(1),
        trial_work: Some(1_000),
        ..Default::default()
    });
    let st = fig1_state(&sample(), &|id| id, &[]);
    let e1 = analyze_with(&mut s, &st, CallOptions::default()).unwrap_err();
    assert!(!e1.to_string().contains("trial"), "{e1:#}");
    let e2 = analyze_with(&mut s, &st, CallOptions::default()).unwrap_err();
    assert!(
        e2.to_string().contains("known from an earlier call"),
        "{e2:#}"
    );
    assert_eq!(s.reuse_stats().over_trial, 0);
}

/// The call of `v`'s state analysed on demand with the call's own options.
fn analyze_with(s: &mut Session, v: &Value, call: CallOptions) -> anyhow::Result<CallResult> {
    let snap = load(v);
    s.analyze_on_demand_after(
        &mut |sess, g, what| fetch(&snap, sess.roots(), g, what),
        &[],
        call,
    )
    .map(|(_, _, r, _)| r)
}

#[test]
fn a_call_over_its_own_budget_teaches_the_session_nothing() {
    // The session's budget is out of reach; the call's own (one points-to element, as a
    // client gives for a call it wants only if cheap) stops its solve. That is the
    // client's choice, not the code's fault: the error says so, and a call with the
    // session's budget then solves the same state (were the function marked over budget,
    // it would fail "known from an earlier call" without solving).
    let mut s = session_with(SessionOptions {
        max_work: Some(1_000_000_000),
        ..Default::default()
    });
    let st = fig1_state(&sample(), &|id| id, &[]);
    let tight = CallOptions {
        max_work: Some(1),
        ..Default::default()
    };
    let e = analyze_with(&mut s, &st, tight).unwrap_err();
    assert!(e.downcast_ref::<OverCallBudget>().is_some(), "{e:#}");
    assert_eq!(s.reuse_stats().over_budget, 0);
    let r = sets(&analyze_with(&mut s, &st, CallOptions::default()).unwrap());
    assert_eq!(
        r,
        sets(&fresh_result(&st)),
        "the session's call answers as a fresh one"
    );
    assert!(!r.0.is_empty(), "table_insert writes");
    // Now cached: a tight call reuses the summary (no solve, so no budget to go over).
    let runs = s.reuse_stats().solver_runs;
    assert_eq!(sets(&analyze_with(&mut s, &st, tight).unwrap()), r);
    assert_eq!(s.reuse_stats().solver_runs, runs);
}

#[test]
fn a_call_budget_looser_than_the_sessions_is_the_sessions() {
    // The tighter budget holds: over the session's, the session's error (and mark).
    let mut s = session_with(SessionOptions {
        max_work: Some(1),
        ..Default::default()
    });
    let st = fig1_state(&sample(), &|id| id, &[]);
    let loose = CallOptions {
        max_work: Some(1_000_000_000),
        ..Default::default()
    };
    let e = analyze_with(&mut s, &st, loose).unwrap_err();
    assert!(e.downcast_ref::<OverCallBudget>().is_none(), "{e:#}");
    assert!(e.to_string().contains("work budget"), "{e:#}");
    assert_eq!(s.reuse_stats().over_budget, 1);
}

type Sets = (Vec<ResLoc>, Vec<ResLoc>, Vec<ResLoc>);

fn sets(r: &CallResult) -> Sets {
    (r.modset.clone(), r.refset.clone(), r.freeset.clone())
}

/// A fresh solve of `v`'s call (no cache), on demand as `analyze_with`.
fn fresh_result(v: &Value) -> CallResult {
    let mut s = session_with(SessionOptions {
        reuse: false,
        ..Default::default()
    });
    analyze_with(&mut s, v, CallOptions::default()).unwrap()
}

#[test]
fn cache_is_bounded_in_size() {
    // Distinct states (chains of 30 to 59 elements in one bucket, with different typed
    // elements), one entry each. The count bound is set out of reach (2^20 per function),
    // so an eviction can only come from the size bound; entries of 30+ element states hold
    // hundreds of units, so it must come within the 480 states tried. Each state is
    // analysed twice, so that half the lookups hit and the function keeps caching every
    // miss (`summaries::Yield`).
    let mut s = session_with(SessionOptions {
        on_demand: false,
        cache_entries: 1 << 20,
        ..Default::default()
    });
    let mut n = 0;
    'outer: for len in 30..60usize {
        for typed_mask in 0..16u32 {
            let elems: Vec<(u8, u8, bool)> = (0..len)
                .map(|i| (1, 0, i < 4 && typed_mask & (1 << i) != 0))
                .collect();
            let st = fig1_state(&elems, &|id| id, &[]);
            analyze(&mut s, &st);
            analyze(&mut s, &st);
            n += 1;
            if s.reuse_stats().evictions > 0 {
                break 'outer;
            }
        }
    }
    let st = s.reuse_stats();
    assert!(st.evictions > 0, "no eviction after {n} distinct states");
    assert!(st.entries < n, "{} entries for {n} states", st.entries);
    assert_eq!(st.low_yield_skips, 0, "every other lookup hit");
}

#[test]
fn a_function_whose_states_never_repeat_is_looked_up_at_sampled_calls_only() {
    // 96 distinct states of one function (chains of 1 to 96 elements): no lookup can
    // hit. After `Yield::WARMUP` lookups, only one call in `Yield::SAMPLE` looks up (and
    // caches its result). Each answer must still be the fresh analysis' (reuse decides
    // cost, never answers), and a state seen before, met at a sampled call, is reused.
    let mut s = session_with(SessionOptions {
        on_demand: false,
        ..Default::default()
    });
    let state = |len: usize| {
        let elems: Vec<(u8, u8, bool)> = (0..len).map(|_| (1, 0, false)).collect();
        fig1_state(&elems, &|id| id, &[])
    };
    for len in 1..=96 {
        let st = state(len);
        let r = analyze(&mut s, &st);
        let f = fresh(&st);
        assert_eq!((r.modset, r.refset), (f.modset, f.refset), "chain of {len}");
    }
    let st = s.reuse_stats();
    let w = pspa::summaries::Yield::WARMUP;
    let tried = w + (96 - w) / pspa::summaries::Yield::SAMPLE;
    assert_eq!(st.reuse_hits, 0);
    assert_eq!(st.low_yield_skips, 96 - tried, "lookups made: {tried}");
    // The last call (the 96th asked, a multiple of SAMPLE) looked up and cached its
    // state: the same state again is a sampled call's hit only if asked at a sampled
    // call, so ask SAMPLE times; exactly one of them looks up, and hits.
    let again = state(96);
    for _ in 0..pspa::summaries::Yield::SAMPLE {
        analyze(&mut s, &again);
    }
    assert_eq!(s.reuse_stats().reuse_hits, 1);
}
