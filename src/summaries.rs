//! Reuse of call summaries by state isomorphism (paper 4.5).
//!
//! A cache entry keeps a call's initial abstract state and its result, relative to that
//! state. A new state of the same function reuses an entry when the two are isomorphic:
//! a one-to-one map between their abstract objects that preserves sites (unique sites only
//! to unique sites of the same static site; program objects only to themselves), field
//! layouts (field-insensitive only to field-insensitive), the roots (each argument, each
//! global) and every points-to edge. The cached result is then translated through the map.
//!
//! The check computes a *canonical form* of each state, independent of object ids and of
//! the order objects come in: colours from a few rounds of Weisfeiler-Lehman refinement
//! over sites, layouts, roots and edges, then a breadth-first numbering from the roots in
//! colour order. Two states with equal forms are isomorphic, and the numbering is the map;
//! it is a bijection by construction (unlike the authors' tool, which zipped points-to sets
//! in id order and never checked injectivity). The converse may fail when colours tie on
//! objects that are not interchangeable: that costs a miss, never a wrong reuse. A hash of
//! the form's sizes and colour multiset finds candidates; the forms themselves are compared
//! before reuse.

use crate::abstraction::{AbsLoc, AbstractState, Origin, PostState};
use crate::facts::{FuncId, LayoutId, ObjId};
use crate::local::{CallResult, ResLoc, ValueSets};
use rustc_hash::{FxHashMap, FxHasher};
use serde::Serialize;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

/// A location in canonical numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum CLoc {
    Field { obj: u32, field: u32 },
    Func(FuncId),
}

/// What must be equal for two objects to match, ids left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct ObjDesc {
    kind: u8,
    /// Interned static site.
    site: u32,
    /// None: field-insensitive.
    layout: Option<LayoutId>,
    /// Program objects (globals, static sites) match only themselves.
    program: Option<ObjId>,
    /// An opaque object (contents not read) matches only an opaque one: a result that
    /// read nothing from it may have read a fetched one's (empty) contents.
    opaque: bool,
}

/// The id-free form of a state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Form {
    function: FuncId,
    objects: Vec<ObjDesc>,
    args: Vec<Vec<CLoc>>,
    edges: Vec<(CLoc, CLoc)>,
}

/// A canonicalised state: its form, and canonical index -> abstract object index.
pub struct Canon {
    hash: u64,
    form: Form,
    order: Vec<u32>,
}

fn hash_of<T: Hash>(t: &T) -> u64 {
    let mut h = FxHasher::default();
    t.hash(&mut h);
    h.finish()
}

/// Interns static sites so that forms compare integers, not strings.
#[derive(Default)]
pub struct Interner(FxHashMap<String, u32>);

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.0.get(s) {
            return i;
        }
        let i = self.0.len() as u32;
        self.0.insert(s.to_string(), i);
        i
    }
}

/// Rounds of colour refinement: enough to tell apart list cells by what follows them a
/// few steps ahead; ties beyond that are resolved by input order (a possible miss).
const WL_ROUNDS: usize = 2;

pub fn canonicalize(abs: &AbstractState, sites: &mut Interner) -> Canon {
    let n = abs.objects.len();
    let desc: Vec<ObjDesc> = abs
        .objects
        .iter()
        .map(|o| ObjDesc {
            kind: o.kind as u8,
            site: sites.id(&o.site),
            layout: o.layout,
            program: match o.origin {
                Origin::Program(p) => Some(p),
                Origin::Unique(_) => None,
            },
            opaque: o.opaque,
        })
        .collect();
    // Outgoing edges per object, as ranges of the sorted edge list (holders come first in
    // the order, and a holder is always a field).
    let mut start = vec![0u32; n + 1];
    for &(h, _) in &abs.edges {
        if let AbsLoc::Field { obj, .. } = h {
            start[obj as usize + 1] += 1;
        }
    }
    for o in 0..n {
        start[o + 1] += start[o];
    }
    let out = |o: usize| {
        abs.edges[start[o] as usize..start[o + 1] as usize]
            .iter()
            .map(|&(h, t)| match h {
                AbsLoc::Field { field, .. } => (field, t),
                AbsLoc::Func(_) => unreachable!("a function holds no pointer"),
            })
    };
    // Initial colours: description plus the roots an object is reached from directly.
    let mut color: Vec<u64> = desc.iter().map(hash_of).collect();
    for (i, targets) in abs.args.iter().enumerate() {
        for t in targets {
            if let AbsLoc::Field { obj, field } = t {
                color[*obj as usize] = hash_of(&(color[*obj as usize], 1u8, i, *field));
            }
        }
    }
    let mut sig: Vec<(u32, u32, u64)> = Vec::new();
    let mut next = vec![0u64; n];
    for _ in 0..WL_ROUNDS {
        for o in 0..n {
            sig.clear();
            for (hf, t) in out(o) {
                sig.push(match t {
                    AbsLoc::Field { obj, field } => (hf, field, color[obj as usize]),
                    AbsLoc::Func(f) => (hf, u32::MAX, f as u64),
                });
            }
            sig.sort_unstable();
            next[o] = hash_of(&(color[o], &sig));
        }
        std::mem::swap(&mut color, &mut next);
    }
    // Breadth-first numbering from the roots, in colour order.
    let mut num = vec![u32::MAX; n];
    let mut order: Vec<u32> = Vec::with_capacity(n);
    let mut queue: VecDeque<u32> = VecDeque::new();
    let visit = |o: u32, num: &mut Vec<u32>, order: &mut Vec<u32>, queue: &mut VecDeque<u32>| {
        if num[o as usize] == u32::MAX {
            num[o as usize] = order.len() as u32;
            order.push(o);
            queue.push_back(o);
        }
    };
    let mut starts: Vec<(u32, u64, u32)> = Vec::new();
    for targets in &abs.args {
        starts.clear();
        for t in targets {
            if let AbsLoc::Field { obj, field } = t {
                starts.push((*field, color[*obj as usize], *obj));
            }
        }
        starts.sort_by_key(|&(f, c, _)| (f, c));
        for &(_, _, o) in &starts {
            visit(o, &mut num, &mut order, &mut queue);
        }
    }
    let mut rest: Option<Vec<u32>> = None;
    let mut ri = 0;
    let mut succ: Vec<(u32, u32, u64, u32)> = Vec::new();
    loop {
        while let Some(o) = queue.pop_front() {
            succ.clear();
            for (hf, t) in out(o as usize) {
                if let AbsLoc::Field { obj, field } = t {
                    succ.push((hf, field, color[obj as usize], obj));
                }
            }
            succ.sort_by_key(|&(hf, f, c, _)| (hf, f, c));
            for &(_, _, _, t) in &succ {
                visit(t, &mut num, &mut order, &mut queue);
            }
        }
        // Objects not reached from the arguments: program objects first (fixed identity),
        // then the rest by colour.
        let rest = rest.get_or_insert_with(|| {
            let mut r: Vec<u32> = (0..n as u32)
                .filter(|&o| num[o as usize] == u32::MAX)
                .collect();
            r.sort_by_key(|&o| {
                (
                    desc[o as usize].program.is_none(),
                    desc[o as usize].program,
                    color[o as usize],
                )
            });
            r
        });
        while ri < rest.len() && num[rest[ri] as usize] != u32::MAX {
            ri += 1;
        }
        if ri == rest.len() {
            break;
        }
        visit(rest[ri], &mut num, &mut order, &mut queue);
    }
    let cl = |l: &AbsLoc| match *l {
        AbsLoc::Field { obj, field } => CLoc::Field {
            obj: num[obj as usize],
            field,
        },
        AbsLoc::Func(f) => CLoc::Func(f),
    };
    // Edges in canonical order without a global sort: holders in canonical order, each
    // holder's few edges sorted among themselves.
    let mut edges: Vec<(CLoc, CLoc)> = Vec::with_capacity(abs.edges.len());
    for &o in &order {
        let from = edges.len();
        edges.extend(
            abs.edges[start[o as usize] as usize..start[o as usize + 1] as usize]
                .iter()
                .map(|(h, t)| (cl(h), cl(t))),
        );
        edges[from..].sort_unstable();
    }
    let args = abs
        .args
        .iter()
        .map(|ts| {
            let mut v: Vec<CLoc> = ts.iter().map(cl).collect();
            v.sort_unstable();
            v
        })
        .collect();
    let form = Form {
        function: abs.function,
        objects: order.iter().map(|&o| desc[o as usize]).collect(),
        args,
        edges,
    };
    // A cheap hash of the form: its sizes and the multiset of final colours (colour
    // refinement does not depend on ids, so equal forms have equal colour multisets).
    let mix = color.iter().fold(0u64, |a, &c| {
        a.wrapping_add(c.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (c >> 29))
    });
    let hash = hash_of(&(form.function, form.objects.len(), form.edges.len(), mix));
    Canon { hash, form, order }
}

struct Entry {
    canon: Canon,
    result: CallResult,
}

impl Entry {
    /// What an entry holds: objects, edges, arguments and result locations.
    fn size(c: &Canon, r: &CallResult) -> usize {
        2 * c.form.objects.len()
            + c.form.edges.len()
            + c.form.args.iter().map(|a| a.len()).sum::<usize>()
            + r.modset.len()
            + r.refset.len()
            + r.freeset.len()
            + r.demand.len()
            + r.read_fields.len()
            + r.post.edges.len()
            + r.points_to.len()
            + r.points_to.locations()
    }
}

/// The summary cache's bound, in `Entry::size` units (a set element, an edge, an object).
/// At 2^17 it held a few entries per function on SQLite with every function analysed
/// (700 functions, entries of about 300 units): single 60 s runs gave reuse 0.85 and 8.1M
/// instructions, against 0.98 and 21.1M with these bounds (the `cost` target: 22.4M of
/// KLEE alone's 39.6M, peak RSS 0.96x). What held libtasn1's peak down at 2^17 (its tree
/// walks' 1,000-object states) is `MAX_FUNCTION_SIZE` now.
const MAX_CACHE_SIZE: usize = 1 << 21;

/// One function's share of `MAX_CACHE_SIZE`: the old bound of the whole cache, which kept
/// libtasn1's peak RSS at 1.25x KLEE's (1.34x without it at 2^21, for the same reuse).
const MAX_FUNCTION_SIZE: usize = 1 << 17;

/// Entries kept by a function whose lookups almost never hit (`Yield::low`).
const LOW_YIELD_ENTRIES: usize = 4;

/// Reuse counters, printed by `pspa modref --stats` and exposed to the KLEE plugin.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ReuseStats {
    /// Calls; calls that ran the solver at least once; calls answered from the cache alone.
    pub invocations: u64,
    pub analyses: u64,
    pub reuse_hits: u64,
    /// Solver runs (an on-demand projection may solve a call's state in several rounds).
    pub solver_runs: u64,
    /// Calls failed at the work budget, conservatively: stopped solves, and calls failed at
    /// once because their function (or code it calls directly) went over it before.
    pub over_budget: u64,
    /// Of those, calls that went over the trial budget (`SessionOptions::trial_work`): the
    /// first of their function to need more.
    pub over_trial: u64,
    /// Solver runs made again because the solve bound a function whose body the slice
    /// did not hold (a call through a pointer the state or the code holds; `slice.rs`).
    pub body_rounds: u64,
    /// Calls the KLEE plugin answered with its function's last answer: the objects that
    /// analysis met are the same objects with the same types, those it read hold the same
    /// bytes (counted in `reuse_hits` too; no state was read).
    pub unchanged: u64,
    /// On-demand projections: rounds, objects met (opaque included) and objects read.
    pub fetch_rounds: u64,
    pub objects_met: u64,
    pub objects_read: u64,
    pub reuse_ratio: f64,
    /// Time canonicalising states and looking up the cache.
    pub check_ms: f64,
    /// Time in the solver (misses).
    pub solve_ms: f64,
    pub entries: usize,
    pub evictions: u64,
    pub entries_per_function: usize,
    /// Why lookups missed (`--pspa-stats`, `pspa modref --stats`): no summary of the
    /// function yet; no cached state with the same objects (sites, layouts, count); the
    /// same objects but other edges or arguments; the same form but no post-state kept.
    pub miss_new_function: u64,
    pub miss_objects: u64,
    pub miss_edges: u64,
    pub miss_other: u64,
    /// Calls that did not look in the cache because their function's earlier lookups
    /// almost never hit (`Yield`): no canonical form made, nothing cached.
    pub low_yield_skips: u64,
    /// Calls of writeless functions answered without their state (`writeless.rs`; counted
    /// in `reuse_hits` too: a summary made once, given to every call); of those, the calls
    /// of functions that write static objects (errno).
    pub writeless: u64,
    pub writeless_statics: u64,
    /// Full analyses of such functions (where the shortcut is off: `--pspa-check`, the
    /// CLI), each checked to write nothing but the statics of its summary; and those that
    /// wrote more, or freed: each one a bug of the write summaries (expected 0).
    pub writeless_checked: u64,
    pub writeless_contradicted: u64,
}

impl ReuseStats {
    /// Recompute the reuse ratio from the counters.
    pub fn update_ratio(&mut self) {
        self.reuse_ratio = self.reuse_hits as f64 / self.invocations.max(1) as f64;
    }

    /// Add another cache's counters (one cache per module).
    pub fn add(&mut self, r: &ReuseStats) {
        self.invocations += r.invocations;
        self.analyses += r.analyses;
        self.reuse_hits += r.reuse_hits;
        self.solver_runs += r.solver_runs;
        self.over_budget += r.over_budget;
        self.body_rounds += r.body_rounds;
        self.unchanged += r.unchanged;
        self.fetch_rounds += r.fetch_rounds;
        self.objects_met += r.objects_met;
        self.objects_read += r.objects_read;
        self.check_ms += r.check_ms;
        self.solve_ms += r.solve_ms;
        self.entries += r.entries;
        self.evictions += r.evictions;
        self.entries_per_function = r.entries_per_function;
        self.miss_new_function += r.miss_new_function;
        self.miss_objects += r.miss_objects;
        self.miss_edges += r.miss_edges;
        self.miss_other += r.miss_other;
        self.low_yield_skips += r.low_yield_skips;
        self.writeless += r.writeless;
        self.writeless_checked += r.writeless_checked;
        self.writeless_contradicted += r.writeless_contradicted;
        self.update_ratio();
    }
}

/// Whether a function's calls are worth looking up and caching, from what its lookups
/// yielded so far. A lookup costs a canonical form of the state and, on a miss, a copy of
/// the result in the cache; for a function whose calls never repeat a state (libtasn1's
/// `_asn1_find_up` climbs from a new node at each call: 8 hits in 1,258) that is paid at
/// every call for nothing, and its large entries push out other functions' entries. Such
/// a function is looked up only at every `SAMPLE`th call, so that calls that start to
/// repeat are found again (a sampled entry's hit counts like any other). Answers do not
/// depend on it: a hit gives what a solve would (tests/reuse.rs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Yield {
    /// Calls asked about, lookups made, and hits.
    asked: u64,
    tried: u64,
    hits: u64,
}

impl Yield {
    /// Lookups made before the rate counts.
    pub const WARMUP: u64 = 64;
    /// The least hit rate worth a lookup at every call: one in `MIN_RATE`.
    pub const MIN_RATE: u64 = 32;
    /// Below it, one call in `SAMPLE` is looked up.
    pub const SAMPLE: u64 = 8;

    /// Whether this call should look up (and cache); counts it as asked, and as tried if so.
    pub fn try_now(&mut self) -> bool {
        self.asked += 1;
        let worth = !self.low() || self.asked % Self::SAMPLE == 0;
        self.tried += worth as u64;
        worth
    }

    /// A lookup made whatever the rule says (a call under a budget): a try all the same.
    pub fn tried_anyway(&mut self) {
        self.asked += 1;
        self.tried += 1;
    }

    /// Its lookups almost never hit: past the warm-up, fewer than one in `MIN_RATE`.
    pub fn low(&self) -> bool {
        self.tried >= Self::WARMUP && self.hits * Self::MIN_RATE < self.tried
    }

    /// A lookup this rule let through hit.
    pub fn hit(&mut self) {
        debug_assert!(self.hits < self.tried, "a hit without a lookup");
        self.hits += 1;
    }
}

/// The summary cache: per function, at most `cap` entries, least recently used evicted.
pub struct SummaryCache {
    per_function: FxHashMap<FuncId, VecDeque<Entry>>,
    /// Per function: what its lookups yielded (`Yield`).
    yields: FxHashMap<FuncId, Yield>,
    sites: Interner,
    cap: usize,
    /// Total `Entry::size` of the entries.
    size: usize,
    pub stats: ReuseStats,
}

impl SummaryCache {
    pub fn new(entries_per_function: usize) -> SummaryCache {
        SummaryCache {
            per_function: FxHashMap::default(),
            yields: FxHashMap::default(),
            sites: Interner::default(),
            cap: entries_per_function.max(1),
            size: 0,
            stats: ReuseStats {
                entries_per_function: entries_per_function.max(1),
                ..Default::default()
            },
        }
    }

    pub fn canonicalize(&mut self, abs: &AbstractState) -> Canon {
        canonicalize(abs, &mut self.sites)
    }

    /// Whether a call of `f` should look up the cache (and cache its result on a miss):
    /// `anyway`, or its function's lookups yield enough (`Yield`). Counted when not.
    pub fn worth_lookup(&mut self, f: FuncId, anyway: bool) -> bool {
        if anyway {
            self.yields.entry(f).or_default().tried_anyway();
            return true;
        }
        let worth = self.yields.entry(f).or_default().try_now();
        self.stats.low_yield_skips += !worth as u64;
        worth
    }

    /// Find a cached result for a state (`need_post`: the caller needs the post-state)
    /// and translate it; None on a miss.
    pub fn lookup(
        &mut self,
        abs: &AbstractState,
        canon: &Canon,
        need_post: bool,
    ) -> Option<CallResult> {
        let Some(entries) = self.per_function.get_mut(&abs.function) else {
            self.stats.miss_new_function += 1;
            return None;
        };
        let Some(pos) = entries.iter().position(|e| {
            e.canon.hash == canon.hash
                && e.canon.form == canon.form
                && (e.result.has_post || !need_post)
        }) else {
            // Only on a miss, and cheap next to the analysis the miss costs.
            if !entries
                .iter()
                .any(|e| e.canon.form.objects == canon.form.objects)
            {
                self.stats.miss_objects += 1;
            } else if !entries.iter().any(|e| e.canon.form == canon.form) {
                self.stats.miss_edges += 1;
            } else {
                self.stats.miss_other += 1;
            }
            return None;
        };
        let e = entries.remove(pos).unwrap();
        if let Some(y) = self.yields.get_mut(&abs.function) {
            y.hit();
        }
        // cached abstract object (via its canonical index) -> new abstract object
        let mut map = vec![0u32; e.canon.order.len()];
        for (ci, &o1) in e.canon.order.iter().enumerate() {
            map[o1 as usize] = canon.order[ci];
        }
        // Invariant (reuse is an isomorphism): the map is one-to-one onto the new state's
        // objects, whatever order their ids came in.
        debug_assert!(
            {
                let mut seen = vec![false; abs.objects.len()];
                map.len() == abs.objects.len()
                    && map.iter().all(|&o| {
                        (o as usize) < seen.len() && !std::mem::replace(&mut seen[o as usize], true)
                    })
            },
            "a reused summary's object map is a bijection"
        );
        let r = translate(&e.result, &map, abs);
        entries.push_front(e);
        Some(r)
    }

    pub fn insert(&mut self, function: FuncId, canon: Canon, result: CallResult) {
        // A function whose lookups almost never hit keeps a few entries, for the sampled
        // lookups: its states rarely repeat (libtasn1's tree walks: 1,000-object states,
        // whose entries held a tenth of the run's peak), and the room goes to those whose
        // states do.
        let cap = if self.yields.get(&function).is_some_and(Yield::low) {
            LOW_YIELD_ENTRIES.min(self.cap)
        } else {
            self.cap
        };
        let size = Entry::size(&canon, &result);
        self.size += size;
        let entries = self.per_function.entry(function).or_default();
        entries.push_front(Entry { canon, result });
        // One function's entries within a share of the whole, so that one function's
        // large states (libtasn1's tree walks) cannot hold the room a program's many
        // functions need.
        let mut own: usize = entries
            .iter()
            .map(|e| Entry::size(&e.canon, &e.result))
            .sum();
        while entries.len() > cap || (own > MAX_FUNCTION_SIZE && entries.len() > 1) {
            let e = entries.pop_back().unwrap();
            let size = Entry::size(&e.canon, &e.result);
            own -= size;
            self.size -= size;
            self.stats.evictions += 1;
        }
        // Bounded in size too: large states (a walk over a tree) make large entries. The
        // function with most entries gives up its least recently used one.
        while self.size > MAX_CACHE_SIZE {
            let Some(f) = self
                .per_function
                .iter()
                .filter(|(_, v)| v.len() > 1)
                .max_by_key(|(f, v)| (v.len(), **f))
                .map(|(f, _)| *f)
            else {
                break;
            };
            let e = self.per_function.get_mut(&f).unwrap().pop_back().unwrap();
            self.size -= Entry::size(&e.canon, &e.result);
            self.stats.evictions += 1;
        }
        self.stats.entries = self.per_function.values().map(|v| v.len()).sum();
    }
}

fn translate(r: &CallResult, map: &[u32], abs: &AbstractState) -> CallResult {
    let tl = |l: &ResLoc| match l {
        ResLoc::Abs { obj, field } => ResLoc::Abs {
            obj: map[*obj as usize],
            field: *field,
        },
        s => s.clone(),
    };
    let mut modset: Vec<ResLoc> = r.modset.iter().map(tl).collect();
    let mut refset: Vec<ResLoc> = r.refset.iter().map(tl).collect();
    let mut freeset: Vec<ResLoc> = r.freeset.iter().map(tl).collect();
    modset.sort();
    refset.sort();
    freeset.sort();
    let mut post = PostState::default();
    if r.has_post {
        let n = map.len();
        // The state's own objects in the new order, with the layouts the call left them.
        post.objects = abs.objects.clone();
        for (o1, &o2) in map.iter().enumerate() {
            post.objects[o2 as usize].layout = r.post.objects[o1].layout;
        }
        post.objects.extend(r.post.objects[n..].iter().cloned());
        let tp = |l: AbsLoc| match l {
            AbsLoc::Field { obj, field } if (obj as usize) < n => AbsLoc::Field {
                obj: map[obj as usize],
                field,
            },
            l => l,
        };
        post.edges = r.post.edges.iter().map(|&(h, t)| (tp(h), tp(t))).collect();
    }
    let mut demand: Vec<u32> = r.demand.iter().map(|&o| map[o as usize]).collect();
    demand.sort_unstable();
    let points_to = ValueSets {
        vars: r.points_to.vars.clone(),
        functions: r.points_to.functions.clone(),
        sets: r
            .points_to
            .sets
            .iter()
            .map(|s| {
                let mut v: Vec<ResLoc> = s.iter().map(tl).collect();
                v.sort();
                v
            })
            .collect(),
    };
    CallResult {
        modset,
        refset,
        freeset,
        post,
        has_post: r.has_post,
        live_functions: r.live_functions,
        work: r.work,
        demand,
        read_fields: r.read_fields.clone(),
        points_to,
        calls_unknown: r.calls_unknown,
        // Functions are the program's: isomorphic states reach the same ones.
        calls: r.calls.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lookup rule: every call while warming up; then every call while one lookup in
    /// MIN_RATE hits, one in SAMPLE otherwise, and every call again once hits come back.
    #[test]
    fn yield_samples_functions_whose_lookups_miss() {
        let mut y = Yield::default();
        for _ in 0..Yield::WARMUP {
            assert!(y.try_now());
        }
        let tries = (0..10 * Yield::SAMPLE).filter(|_| y.try_now()).count() as u64;
        assert_eq!(tries, 10);
        // A hit rate of one in MIN_RATE keeps every call looking up.
        let mut z = Yield::default();
        for i in 0..10 * Yield::MIN_RATE {
            assert!(z.try_now(), "call {i}");
            if i % Yield::MIN_RATE == 0 {
                z.hit();
            }
        }
        // Hits at sampled lookups raise the rate until every call looks up again.
        for _ in 0..Yield::WARMUP / Yield::MIN_RATE + 12 {
            y.hit();
        }
        assert!((0..Yield::SAMPLE).all(|_| y.try_now()));
    }

    /// A cache entry of `f` whose size (`Entry::size`) is `units`: a mod set that long.
    fn entry(f: FuncId, units: usize) -> (Canon, CallResult) {
        let canon = Canon {
            hash: units as u64,
            form: Form {
                function: f,
                objects: Vec::new(),
                args: Vec::new(),
                edges: Vec::new(),
            },
            order: Vec::new(),
        };
        let r = CallResult {
            modset: (0..units)
                .map(|i| ResLoc::Static {
                    obj: i as ObjId,
                    field: None,
                })
                .collect(),
            ..Default::default()
        };
        assert_eq!(Entry::size(&canon, &r), units);
        (canon, r)
    }

    /// One function's entries stay within `MAX_FUNCTION_SIZE` (its least recently used
    /// go first, its newest always stays), and leave the rest of the cache to the others.
    #[test]
    fn one_function_holds_at_most_its_share() {
        let mut c = SummaryCache::new(64);
        let (canon, r) = entry(1, 10);
        c.insert(1, canon, r);
        // Three entries of 40% of the share each: the third pushes the first out.
        let big = MAX_FUNCTION_SIZE * 2 / 5;
        for _ in 0..3 {
            let (canon, r) = entry(2, big);
            c.insert(2, canon, r);
        }
        assert_eq!(c.per_function[&2].len(), 2);
        assert_eq!(
            c.per_function[&1].len(),
            1,
            "another function's entry stays"
        );
        assert_eq!(c.stats.evictions, 1);
        assert_eq!(c.size, 10 + 2 * big);
        // An entry larger than the share alone is kept: the newest is the one to reuse.
        let (canon, r) = entry(2, MAX_FUNCTION_SIZE + 1);
        c.insert(2, canon, r);
        assert_eq!(c.per_function[&2].len(), 1);
        assert_eq!(c.size, 10 + MAX_FUNCTION_SIZE + 1);
    }

    /// A function whose lookups almost never hit keeps `LOW_YIELD_ENTRIES`; one whose
    /// lookups hit keeps up to the per-function bound.
    #[test]
    fn low_yield_functions_keep_few_entries() {
        let mut c = SummaryCache::new(64);
        for f in [1, 2] {
            for i in 0..Yield::WARMUP {
                assert!(c.worth_lookup(f, false));
                // f 2 hits one lookup in two: above the rate.
                if f == 2 && i % 2 == 0 {
                    c.yields.get_mut(&f).unwrap().hit();
                }
            }
        }
        assert!(c.yields[&1].low() && !c.yields[&2].low());
        for f in [1, 2] {
            for _ in 0..10 {
                let (canon, r) = entry(f, 1);
                c.insert(f, canon, r);
            }
        }
        assert_eq!(c.per_function[&1].len(), LOW_YIELD_ENTRIES);
        assert_eq!(c.per_function[&2].len(), 10);
    }

    /// A reused result names the new state's objects: every set goes through the same
    /// renaming and comes out sorted (clients binary-search them), static sites untouched.
    #[test]
    fn translate_renames_every_set() {
        let abs_loc = |obj, field| ResLoc::Abs { obj, field };
        let st = ResLoc::Static {
            obj: 7,
            field: None,
        };
        let r = CallResult {
            modset: vec![abs_loc(0, Some(0)), abs_loc(2, Some(1)), st.clone()],
            refset: vec![abs_loc(1, None)],
            freeset: vec![abs_loc(0, Some(0)), abs_loc(2, Some(1))],
            ..Default::default()
        };
        // old object i is new object map[i]
        let map = [2, 0, 1];
        let t = translate(&r, &map, &AbstractState::default());
        assert_eq!(
            t.modset,
            vec![abs_loc(1, Some(1)), abs_loc(2, Some(0)), st.clone()]
        );
        assert_eq!(t.refset, vec![abs_loc(0, None)]);
        assert_eq!(t.freeset, vec![abs_loc(1, Some(1)), abs_loc(2, Some(0))]);
    }
}
