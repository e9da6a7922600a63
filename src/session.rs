//! A past-sensitive analysis session: one program, a sequence of states at call sites.
//!
//! For each state: project its memory graph (4.1), abstract it (4.3), merge the post-states
//! of earlier *skipped* calls on the same path (6.2), solve from it over the callee, and
//! report the call's mod/ref. Used by `pspa modref` on snapshots and, later, by the KLEE
//! plugin on live states.

use crate::abstraction::{AbsLoc, AbsStats, AbstractState, PostState};
use crate::facts::{Callee, FuncId, LayoutId, ObjId, Program};
use crate::frontend::{self, FrontOptions, Module};
use crate::local::{self, CallResult, ReadKey, ResLoc};
use crate::memory_graph::{MemoryGraph, Roots};
use crate::query::Answer;
use crate::reach::Reach;
use crate::slice::{ProgramIndex, Slice};
use crate::snapshot::LoadedSnapshot;
use crate::state::{ObjType, SymbolicState};
use crate::summaries::{ReuseStats, SummaryCache};
use crate::wit::{self, WitColours};
use anyhow::{anyhow, bail, Result};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::rc::Rc;
use std::time::Instant;

/// The `pspa.modref/1` report of one call.
#[derive(Clone, Debug, Serialize)]
pub struct ModRefReport {
    pub schema: &'static str,
    pub snapshot: String,
    pub function: String,
    #[serde(rename = "mod")]
    pub modset: Vec<String>,
    #[serde(rename = "ref")]
    pub refset: Vec<String>,
    /// May-free: locations of the objects the call may free (a subset of `mod`).
    #[serde(rename = "free")]
    pub freeset: Vec<String>,
    /// With `SessionOptions::points_to`: per dereferenced pointer (`F:%value`, `#N` added when
    /// two share a name), the sorted labels it may point to.
    #[serde(rename = "points-to", skip_serializing_if = "Option::is_none")]
    pub points_to: Option<std::collections::BTreeMap<String, Vec<String>>>,
    pub stats: CallStats,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct CallStats {
    #[serde(flatten)]
    pub abstraction: AbsStats,
    /// Post-states of earlier skipped calls merged into this state.
    pub merged_post_states: usize,
    pub live_functions: usize,
    /// The result was translated from a cached isomorphic state (paper 4.5).
    pub reused: bool,
    pub solve_ms: f64,
    /// Solver work of the call's own solves (`SolverStats::work`; 0 when every round was
    /// reused): a deterministic measure of its cost.
    pub work: u64,
    pub total_ms: f64,
    /// Rounds of the on-demand projection (0: projected eagerly).
    pub fetch_rounds: usize,
}

/// How a session analyses calls: the options of `pspa modref` and of the KLEE plugin
/// (`EngineOptions` in the bridge), given once, at construction (`Session::open`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SessionOptions {
    /// Reuse the summary of an isomorphic state analysed before (paper 4.5); off: every
    /// call is solved (`--no-reuse`, `--pspa-no-reuse`).
    pub reuse: bool,
    /// Project from every global, not only those the callee names (the reference the
    /// narrowed projection is checked against).
    pub all_globals: bool,
    /// Give up on a call (an error: the conservative answer) once its solve has done this
    /// much work (`SolverStats::work`, points-to elements offered; about 0.5e9 a second
    /// here). None: no bound.
    pub max_work: Option<u64>,
    /// A first, smaller budget (used only when below `max_work`): the first time a solve of
    /// a function needs more than this, the call fails (over the work budget) and the
    /// function's later calls get `max_work`. An analysis pays off over repeated calls;
    /// a function called once that needs a solve of most of the program (`main`, a
    /// driver loop) then fails for a tenth of the full budget's cost. None: off.
    pub trial_work: Option<u64>,
    /// A round of the on-demand projection whose solve did more work than this is not
    /// repeated for a few more objects: the rest is read at once, and later calls of the
    /// function read everything first (a callee reaching much of the program solves once
    /// per call, not once per round).
    pub eager_work: u64,
    /// Keep the points-to set of every pointer the call's accesses dereference
    /// (`CallResult::points_to`, `query::Answer::points_to`): clients that resolve
    /// addresses need them, mod/ref alone does not.
    pub points_to: bool,
    /// Read a state on demand (off: project every reachable object first, the reference).
    /// Calls whose path merges post-states are always projected whole.
    pub on_demand: bool,
    /// Solve misses over the call's slice of the program (off: over the whole program,
    /// the reference the slices are checked against).
    pub slices: bool,
    /// Bound of the summary cache, per function (least recently used entries go).
    pub cache_entries: usize,
    /// Follow calls that end the process (`exit`, `abort`, a function that cannot return
    /// otherwise: `Function::ends_process`). Off (the default), an answer is what the call
    /// does in the executions where it returns to its caller: what runs once the process
    /// is ending (atexit handlers, make's `die` after a failed allocation) is not in its
    /// sets. Nothing after the call can see those effects; clients that follow the path
    /// into such code (`--pspa-check`, `--pspa-resolve`) do not use the answer there, and
    /// whether a call may end the path is still answered (`CallResult::calls`).
    pub follow_exits: bool,
    /// Answer a call of a writeless function (`writeless.rs`: it writes nothing outside
    /// its own frame in any state, or only static objects, with no pointer: errno) without
    /// reading its state or solving: those statics its mod-set, an empty free set, its
    /// ref-set not computed (`query::Answer::writeless`: "may read anything"). For mod/ref clients; off where a client needs ref-sets or points-to
    /// sets (`--pspa-check`, resolution, `pspa modref`), and without reuse (a summary
    /// made once and given to every call is reuse).
    pub writeless: bool,
}

impl Default for SessionOptions {
    fn default() -> SessionOptions {
        SessionOptions {
            reuse: true,
            all_globals: false,
            max_work: None,
            trial_work: None,
            eager_work: DEFAULT_EAGER_WORK,
            points_to: false,
            on_demand: true,
            slices: true,
            cache_entries: DEFAULT_ENTRIES_PER_FUNCTION,
            follow_exits: false,
            writeless: false,
        }
    }
}

/// A call answered without its state (`Session::writeless_call`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WritelessCall {
    /// The functions it may run (`CallResult::calls`), sorted.
    pub calls: Vec<FuncId>,
    /// The static objects it may write (`writeless::Summary::statics`), sorted.
    pub statics: Vec<ObjId>,
}

/// How one call is analysed where it differs from the session's options
/// (`Session::analyze_on_demand_after`). The default: as the session says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    /// Keep the call's post-state in its result: the call is skipped, and later calls of
    /// its path join the post-state.
    pub keep_post: bool,
    /// Read everything the call can reach before solving (the reference projection,
    /// `--pspa-eager-projection`), as every call does when the session's `on_demand` is
    /// off.
    pub eager: bool,
    /// Solve afresh, whatever the session's `reuse`: no summary is reused or cached.
    pub fresh: bool,
    /// Keep the points-to sets of the pointers the call dereferences, whatever the
    /// session's `points_to`.
    pub points_to: bool,
    /// Follow calls that end the process, whatever the session's `follow_exits` (the
    /// WIT colours cover every write the code may make). Such a call is solved afresh.
    pub follow_exits: bool,
    /// A work budget no looser than the session's (`SessionOptions::max_work`), for a call
    /// a client analyses only if it is cheap (resolution's snapshots). Going over it fails
    /// the call with `OverCallBudget`, and teaches the session nothing: a call with the
    /// session's budget may still fit.
    pub max_work: Option<u64>,
}

/// A call went over its own work budget (`CallOptions::max_work`), not the session's:
/// the client chose to give it up. Not a failure of the analysis.
#[derive(Debug)]
pub struct OverCallBudget {
    pub function: String,
    pub budget: u64,
}

impl std::fmt::Display for OverCallBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the analysis of `{}` needs more than the call's own work budget ({} points-to elements)",
            self.function, self.budget
        )
    }
}

impl std::error::Error for OverCallBudget {}

/// The fields a function's calls read so far (`ReadKey`s), with the views
/// `fetch_closure` asks of them kept up to date as keys join.
#[derive(Default)]
struct Predicted {
    keys: rustc_hash::FxHashSet<ReadKey>,
    /// The layouts of the `Field` and `Layout` keys: objects of them are fetched when met.
    layouts: rustc_hash::FxHashSet<LayoutId>,
    /// The `Untyped` keys' sites.
    untyped: rustc_hash::FxHashSet<std::sync::Arc<str>>,
    /// The `Copied` keys' sites.
    copied: rustc_hash::FxHashSet<std::sync::Arc<str>>,
    /// The `ArgCopied` keys' arguments: the objects they point to are fetched ahead.
    args: Vec<u32>,
}

impl Predicted {
    fn len(&self) -> usize {
        self.keys.len()
    }

    fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    fn extend(&mut self, keys: &[ReadKey]) {
        for k in keys {
            if !self.keys.insert(k.clone()) {
                continue;
            }
            match k {
                ReadKey::Field(l, _) | ReadKey::Layout(l) => {
                    self.layouts.insert(*l);
                }
                ReadKey::Untyped(s) => {
                    self.untyped.insert(s.clone());
                }
                ReadKey::Copied(s) => {
                    self.copied.insert(s.clone());
                }
                ReadKey::ArgCopied(k) => self.args.push(*k),
            }
        }
    }
}

pub struct Session {
    pub prog: Program,
    module: Module,
    options: SessionOptions,
    type_layouts: FxHashMap<ObjType, Option<LayoutId>>,
    /// Post-states of skipped calls, per execution path.
    paths: HashMap<String, Vec<PostState>>,
    /// Summaries for reuse, and the counters of every call.
    cache: SummaryCache,
    reach: once_cell::unsync::OnceCell<Reach>,
    /// Slices by (bodies, addresses): see `slice.rs`.
    slices: FxHashMap<(Vec<FuncId>, Vec<FuncId>), Rc<Slice>>,
    /// Per callee, the functions its solves bound through pointers (bodies its slices
    /// need): a later call's slice holds them from the start, one solve instead of two.
    bodies: FxHashMap<FuncId, Vec<FuncId>>,
    /// Variables of the cached slices (the cache is dropped beyond the program's).
    slice_vars: u64,
    /// Callees whose solve went over the work budget: their later calls fail at once
    /// instead of spending it again (failing is the conservative answer).
    over_budget: rustc_hash::FxHashSet<FuncId>,
    /// Functions that went over the trial budget (`SessionOptions::trial_work`) once:
    /// their solves get the whole budget from then on.
    tried: rustc_hash::FxHashSet<FuncId>,
    /// Functions that reach such a callee by direct calls and were never solved within
    /// the budget: their slices hold its code, and their calls fail at once too (SQLite's
    /// parser and code generator are one cycle of 72 functions with the same slice of
    /// 1,780: each went over the budget in turn, after 1-2 s, 45 of a 60 s run's 58 s of
    /// analysis; a quarter of the budget for each first try still cost 31 s). A function
    /// solved within the budget once is never predicted: states decide too.
    doomed: rustc_hash::FxHashSet<FuncId>,
    within_budget: rustc_hash::FxHashSet<FuncId>,
    /// Per function, its calls that went over the budget only after a body round.
    late_overruns: FxHashMap<FuncId, u32>,
    /// Per function, the functions that call it directly (built at the first failure).
    callers: once_cell::unsync::OnceCell<Vec<Vec<FuncId>>>,
    /// Per function, the fields its calls read so far: a new call fetches along them from
    /// the start, so that a walk needs one round, not one per doubling.
    predicted: FxHashMap<FuncId, Predicted>,
    /// Functions whose solves are heavy (`eager_work`): their calls read everything first.
    heavy: rustc_hash::FxHashSet<FuncId>,
    slice_index: once_cell::unsync::OnceCell<ProgramIndex>,
    /// Per function whose writes do not depend on the state, the static objects it writes
    /// (`writeless::state_free_writes`; empty: writeless), under the session's
    /// `follow_exits`; built at the first call that asks.
    writeless: once_cell::unsync::OnceCell<Vec<Option<Vec<ObjId>>>>,
    /// Per such function answered so far, the functions its calls may run (a walk of its
    /// callees, made once: such calls are most of libtasn1's).
    writeless_calls: FxHashMap<FuncId, Vec<FuncId>>,
    /// Said once: a full analysis found a write of a function called writeless.
    writeless_warned: bool,
}

/// Slices kept before the cache starts over (each is a few functions' facts).
const MAX_SLICES: usize = 512;

/// Default bound of the summary cache, per function (least recently used entries go).
pub const DEFAULT_ENTRIES_PER_FUNCTION: usize = 64;

/// Remove the `@ID` of unique sites from labels and de-duplicate (how the paper compares
/// sizes with SPA, Table 1).
pub fn strip_unique(labels: &[String]) -> Vec<String> {
    let mut v: Vec<String> = labels
        .iter()
        .map(|l| match crate::site::Label::parse(l) {
            Some(x) => x.stripped().to_string(),
            None => l.clone(),
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

impl Session {
    /// Reuse a cached summary of an isomorphic state, or solve and cache. One call may
    /// take several of these (an on-demand projection grows between them); the caller
    /// counts the call.
    fn solve_or_reuse(
        &mut self,
        abs: &AbstractState,
        call: CallOptions,
    ) -> Result<(CallResult, bool, f64, u64)> {
        let need_post = call.keep_post;
        let cut_exits = !(self.options.follow_exits || call.follow_exits);
        let own_kind = self.solved_as_session(call);
        // The call's own budget, unless the session's is tighter: a client's budget equal to
        // the session's (resolution's and the plugin's defaults) is still the client's
        // choice, which gives the call up rather than failing it.
        let own_budget = call
            .max_work
            .filter(|&c| self.options.max_work.is_none_or(|s| c <= s));
        // The trial budget, until the function went over it once: only for calls with no
        // budget of their own (a client's budget is its choice, and holds as given) solved
        // as the session's are (they teach it).
        let trial = match (self.options.trial_work, self.options.max_work) {
            (Some(t), Some(m))
                if t < m
                    && call.max_work.is_none()
                    && own_kind
                    && !self.tried.contains(&abs.function) =>
            {
                Some(t)
            }
            _ => None,
        };
        let max_work = own_budget.or(trial).or(self.options.max_work);
        let mut canon = None;
        // Where a budget applies, a hit answers a call that a solve might not (over the
        // budget, or failed at once as bound to go over it): such calls always look up,
        // so that the yield rule changes only what a call costs.
        // (The trial budget is left out: every function has it until its first overrun;
        // a skipped hit can then cost that overrun once, a function whose solve needs
        // more than the trial, which the next call gets whole.)
        let budgeted = own_budget.is_some()
            || self.over_budget.contains(&abs.function)
            || self.doomed.contains(&abs.function);
        if self.options.reuse
            && !call.fresh
            && own_kind
            && self.cache.worth_lookup(abs.function, budgeted)
        {
            let t = Instant::now();
            let c = self.cache.canonicalize(abs);
            let hit = self.cache.lookup(abs, &c, need_post);
            self.cache.stats.check_ms += t.elapsed().as_secs_f64() * 1e3;
            if let Some(hit) = hit {
                return Ok((hit, true, 0.0, 0));
            }
            canon = Some(c);
        }
        let t = Instant::now();
        let roots = self.slice_roots(abs);
        // The callee's body and those its earlier solves bound through pointers; the
        // functions the state points to as addresses. A solve that binds one whose body the
        // slice lacks is made again with it (at most once per function and callee).
        let mut bodies: Vec<FuncId> = vec![abs.function];
        bodies.extend(self.bodies.get(&abs.function).into_iter().flatten());
        self.fail_if_bound_to(abs.function)?;
        let mut slice: Option<Rc<Slice>>;
        // Work of the rounds solved again with more bodies.
        let mut spent: u64 = 0;
        let ca = loop {
            slice = self.options.slices.then(|| self.slice_for(&bodies, &roots));
            // The budget bounds the call, body rounds included.
            let left = max_work.map(|w| w.saturating_sub(spent).max(1));
            let ca = local::analyze_call_within(&self.prog, abs, slice.as_deref(), left, cut_exits);
            log::debug!(
                "miss of `{}`: {} bodies / {} state functions, slice {} functions / {} variables / {} objects; {} state objects ({} opaque); {} live functions, {} nodes, work {}, {} bodies demanded",
                self.prog.functions[abs.function as usize].name,
                bodies.len(),
                roots.len(),
                slice.as_ref().map_or(self.prog.functions.len(), |s| s.prog.functions.len()),
                slice.as_ref().map_or(self.prog.num_vars, |s| s.prog.num_vars),
                slice.as_ref().map_or(self.prog.objects.len(), |s| s.prog.objects.len()),
                abs.objects.len(),
                abs.objects.iter().filter(|o| o.opaque).count(),
                ca.analysis.solver.stats.live_functions,
                ca.analysis.solver.stats.nodes,
                ca.analysis.solver.stats.work,
                ca.analysis.solver.demanded_bodies.len(),
            );
            let demanded = ca.demanded_bodies();
            if demanded.is_empty() || ca.over_budget() {
                break ca;
            }
            spent += ca.analysis.solver.stats.work;
            drop(ca);
            self.cache.stats.solver_runs += 1;
            self.cache.stats.body_rounds += 1;
            for g in demanded {
                assert!(
                    !bodies.contains(&g),
                    "a slice lacks a body it was made with"
                );
                bodies.push(g);
                if own_kind {
                    self.bodies.entry(abs.function).or_default().push(g);
                }
            }
        };
        let over = ca.over_budget();
        let work = spent + ca.analysis.solver.stats.work;
        let points_to = self.options.points_to || call.points_to;
        let result = (!over).then(|| ca.result_with(abs, need_post, points_to));
        drop(ca);
        let solve_ms = t.elapsed().as_secs_f64() * 1e3;
        self.cache.stats.solver_runs += 1;
        self.cache.stats.solve_ms += solve_ms;
        let Some(result) = result else {
            if let Some(budget) = own_budget {
                return Err(OverCallBudget {
                    function: self.prog.functions[abs.function as usize].name.clone(),
                    budget,
                }
                .into());
            }
            self.cache.stats.over_budget += 1;
            if let Some(t) = trial {
                // Over the trial budget only: the next call gets the whole one, and so do
                // the functions reaching this one by direct calls (their slices hold its
                // code): otherwise each of a set of functions sharing one large slice
                // (SQLite's parser, 72 of them) would pay its own trial before the first
                // to go over the whole budget dooms the rest.
                self.cache.stats.over_trial += 1;
                self.tried.insert(abs.function);
                let reaching = self.reaching(abs.function);
                self.tried.extend(reaching);
                bail!(
                    "the analysis of `{}` needs more than its trial budget ({t} points-to elements; its later calls get the whole --max-work)",
                    self.prog.functions[abs.function as usize].name,
                );
            }
            // Over it only with the rounds before the last: later calls, which start
            // with the learned bodies, may fit; not remembered, unless that keeps
            // happening (SQLite's expression walker meets new callbacks at every call:
            // 30 calls each went over after a body round, 87 ms each).
            if own_kind {
                let late = self.late_overruns.entry(abs.function).or_default();
                *late += (spent > 0) as u32;
                if spent == 0 || *late >= MAX_LATE_OVERRUNS {
                    self.mark_over_budget(abs.function);
                }
            }
            bail!(
                "the analysis of `{}` needs more than its work budget ({} points-to elements; --max-work)",
                self.prog.functions[abs.function as usize].name,
                max_work.unwrap_or(0)
            );
        };
        self.check_writeless(abs, &result, own_kind);
        if log::log_enabled!(log::Level::Trace) {
            let names: Vec<&str> = result
                .calls
                .iter()
                .map(|&f| self.prog.functions[f as usize].name.as_str())
                .collect();
            log::trace!(
                "`{}` may run: {}",
                self.prog.functions[abs.function as usize].name,
                names.join(" ")
            );
        }
        // A complete answer (not a round of a partial state) shows the code fits.
        if result.demand.is_empty() && own_kind {
            self.doomed.remove(&abs.function);
            self.within_budget.insert(abs.function);
        }
        if let Some(c) = canon {
            self.cache.insert(abs.function, c, result.clone());
        }
        Ok((result, false, solve_ms, work))
    }

    /// Whether `call` is solved as the session's calls are: one that follows calls ending
    /// the process where the session does not (WIT's) caches and teaches them nothing.
    fn solved_as_session(&self, call: CallOptions) -> bool {
        !call.follow_exits || self.options.follow_exits
    }

    /// Fail a call of `f` at once (the session's error, counted) when its solve is bound to
    /// go over the work budget: it went over it before (states differ little next to it),
    /// or it can run code whose solve did. `analyze_on_demand_after` asks once the roots are
    /// read; the plugin's bridge, which knows the function, asks before reading anything.
    pub fn fail_if_bound_to(&mut self, f: FuncId) -> Result<()> {
        if self.options.max_work.is_none() {
            return Ok(());
        }
        let why = if self.over_budget.contains(&f) {
            "known from an earlier call"
        } else if self.doomed.contains(&f) {
            "it can run code whose analysis went over it"
        } else {
            return Ok(());
        };
        self.cache.stats.over_budget += 1;
        bail!(
            "the analysis of `{}` needs more than its work budget (--max-work; {why})",
            self.prog.functions[f as usize].name
        );
    }

    /// The static objects `f` writes, when its writes do not depend on the state (empty:
    /// it is writeless; `writeless.rs`), under the session's `follow_exits`.
    pub fn state_free_writes(&self, f: FuncId) -> Option<&[ObjId]> {
        let w = self.writeless.get_or_init(|| {
            crate::writeless::state_free_writes(&self.prog, self.options.follow_exits)
        });
        w.get(f as usize)?.as_deref()
    }

    /// Whether `f` is writeless (`writeless.rs`) under the session's `follow_exits`.
    pub fn is_writeless(&self, f: FuncId) -> bool {
        self.state_free_writes(f).is_some_and(|s| s.is_empty())
    }

    /// A call of `f` answered without its state, when `f`'s writes do not depend on it
    /// (`state_free_writes`) and the call asks only what such an answer tells
    /// (`SessionOptions::writeless`): the functions it may run (`CallResult::calls`) and
    /// the statics it writes, counted as a reuse. None: analyse it.
    pub fn writeless_call(&mut self, f: FuncId, call: CallOptions) -> Option<WritelessCall> {
        let o = &self.options;
        let asks_more = call.points_to || call.eager || call.fresh || call.follow_exits;
        if !o.writeless || !o.reuse || o.points_to || !o.on_demand || asks_more {
            return None;
        }
        let statics = self.state_free_writes(f)?.to_vec();
        self.cache.stats.writeless += 1;
        self.cache.stats.writeless_statics += !statics.is_empty() as u64;
        self.count_call(true);
        let (prog, follow_exits) = (&self.prog, self.options.follow_exits);
        let calls = self
            .writeless_calls
            .entry(f)
            .or_insert_with(|| crate::writeless::calls_of(prog, f, follow_exits));
        Some(WritelessCall {
            calls: calls.clone(),
            statics,
        })
    }

    /// The invariant behind `writeless_call`: a full analysis of a function whose writes do
    /// not depend on the state finds no write outside its frame but of the statics its
    /// summary names. Counted (and said once) where it fails; a debug build stops.
    fn check_writeless(&mut self, abs: &AbstractState, result: &CallResult, own_kind: bool) {
        if !own_kind || !result.demand.is_empty() {
            return;
        }
        let Some(statics) = self.state_free_writes(abs.function) else {
            return;
        };
        // Sets hold no local of the callee or of what it calls (modref.rs drops them). A
        // global of the state is its program object (by id: labels may repeat).
        let named = |l: &ResLoc| match l {
            ResLoc::Abs { obj, .. } => match abs.objects[*obj as usize].origin {
                crate::abstraction::Origin::Program(o) => statics.binary_search(&o).is_ok(),
                crate::abstraction::Origin::Unique(_) => false,
            },
            ResLoc::Static { obj, .. } => statics.binary_search(obj).is_ok(),
            ResLoc::Made(_) => false,
        };
        let outside = result.modset.iter().filter(|l| !named(l)).count();
        self.cache.stats.writeless_checked += 1;
        if outside == 0 && result.freeset.is_empty() && !result.calls_unknown {
            return;
        }
        self.cache.stats.writeless_contradicted += 1;
        let name = &self.prog.functions[abs.function as usize].name;
        debug_assert!(
            false,
            "`{name}`'s writes do not depend on the state, yet its analysis writes {outside} other locations"
        );
        if !self.writeless_warned {
            self.writeless_warned = true;
            log::warn!(
                "`{name}` was found to write nothing outside its frame but static objects, yet a full analysis of a call writes {outside} other locations (frees {}): no call is answered without its state from now on",
                result.freeset.len()
            );
        }
        // Conservative from here on: the summaries of its callers were made from its own,
        // so no call of any function is answered without its state.
        if let Some(w) = self.writeless.get_mut() {
            w.iter_mut().for_each(|s| *s = None);
        }
    }

    /// `f`'s solve went over the work budget: its calls fail at once from now on, and so do
    /// those of every function that reaches it by direct calls (whose slices hold `f`'s
    /// code) and was never solved within the budget.
    fn mark_over_budget(&mut self, f: FuncId) {
        self.over_budget.insert(f);
        self.doomed.remove(&f);
        for g in self.reaching(f) {
            if !self.within_budget.contains(&g) && !self.over_budget.contains(&g) {
                self.doomed.insert(g);
            }
        }
    }

    /// The functions that reach `f` by direct calls, transitively (their slices hold
    /// `f`'s code).
    fn reaching(&self, f: FuncId) -> Vec<FuncId> {
        let prog = &self.prog;
        // A call that ends the process is not followed (unless the session follows them):
        // its callee's code is not in its callers' solves.
        let follow_exits = self.options.follow_exits;
        let callers = self.callers.get_or_init(|| {
            let mut callers = vec![Vec::new(); prog.functions.len()];
            for (g, func) in prog.functions.iter().enumerate() {
                for &c in &func.calls {
                    if let Callee::Direct(h) = prog.calls[c as usize].callee {
                        if follow_exits || !prog.functions[h as usize].ends_process {
                            callers[h as usize].push(g as FuncId);
                        }
                    }
                }
            }
            callers
        });
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        let mut work = callers[f as usize].clone();
        while let Some(g) = work.pop() {
            if seen.insert(g) {
                out.push(g);
                work.extend(&callers[g as usize]);
            }
        }
        out
    }

    /// Count a call answered by its function's last answer, the state it read unchanged
    /// (the KLEE plugin's check; nothing of the state was read here): a reuse.
    pub fn count_unchanged(&mut self) {
        self.cache.stats.unchanged += 1;
        self.count_call(true);
    }

    /// Count one analysed call: reused when no solver ran for it.
    fn count_call(&mut self, reused: bool) {
        self.cache.stats.invocations += 1;
        self.cache.stats.reuse_hits += reused as u64;
        self.cache.stats.analyses += !reused as u64;
        self.cache.stats.update_ratio();
    }

    /// The slice a miss solves over: the bodies of `bodies` and of what they call, the
    /// addresses of `addresses` (see slice.rs); cached per (bodies, addresses).
    fn slice_for(&mut self, bodies: &[FuncId], addresses: &[FuncId]) -> Rc<Slice> {
        let mut key = (bodies.to_vec(), addresses.to_vec());
        key.0.sort_unstable();
        // A slice copies the program's layouts: one made before a state brought a new type
        // (`layout_for`) lacks it, and is made again.
        if let Some(sl) = self
            .slices
            .get(&key)
            .filter(|sl| sl.prog.layouts.len() == self.prog.layouts.len())
        {
            return sl.clone();
        }
        // Bounded by count and by size: a slice of most of the program is a copy of it.
        if self.slices.len() >= MAX_SLICES || self.slice_vars > self.prog.num_vars as u64 {
            self.slices.clear();
            self.slice_vars = 0;
        }
        let reach = self.reach.get_or_init(|| Reach::new(&self.prog));
        // Objects, constraints and initialisers never change after the front end (states
        // only add layouts), so the index is built once.
        let index = self
            .slice_index
            .get_or_init(|| ProgramIndex::new(&self.prog));
        let sl = Rc::new(Slice::new(&self.prog, reach, index, &key.0, &key.1));
        self.slice_vars += sl.prog.num_vars as u64;
        self.slices.insert(key, sl.clone());
        sl
    }

    /// The callee and the functions the state points to: the addresses a miss's slice holds
    /// (and the callee's body).
    fn slice_roots(&self, abs: &AbstractState) -> Vec<FuncId> {
        let mut roots: Vec<FuncId> = vec![abs.function];
        let funcs = abs
            .args
            .iter()
            .flatten()
            .chain(abs.edges.iter().map(|(_, t)| t));
        roots.extend(funcs.filter_map(|l| match *l {
            AbsLoc::Func(f) => Some(f),
            AbsLoc::Field { .. } => None,
        }));
        roots.sort_unstable();
        roots.dedup();
        roots
    }

    /// Reuse statistics.
    pub fn reuse_stats(&self) -> ReuseStats {
        self.cache.stats.clone()
    }

    /// A session over the module at `module` (.bc, .ll, .c), read as `front` says,
    /// analysing calls as `options` say.
    pub fn open(module: &Path, front: &FrontOptions, options: SessionOptions) -> Result<Session> {
        let m = frontend::load(module)?;
        Session::from_module(m, front, options)
    }

    /// A session over a module already loaded (or borrowed from KLEE).
    pub fn from_module(
        m: Module,
        front: &FrontOptions,
        options: SessionOptions,
    ) -> Result<Session> {
        let prog =
            frontend::extract(&m, front).map_err(|e| anyhow!("{}: {}", m.path.display(), e))?;
        Ok(Session {
            prog,
            module: m,
            type_layouts: FxHashMap::default(),
            paths: HashMap::new(),
            cache: SummaryCache::new(options.cache_entries),
            options,
            reach: once_cell::unsync::OnceCell::new(),
            slices: FxHashMap::default(),
            bodies: FxHashMap::default(),
            slice_vars: 0,
            over_budget: Default::default(),
            tried: Default::default(),
            doomed: Default::default(),
            within_budget: Default::default(),
            late_overruns: Default::default(),
            callers: once_cell::unsync::OnceCell::new(),
            predicted: Default::default(),
            heavy: Default::default(),
            slice_index: once_cell::unsync::OnceCell::new(),
            writeless: once_cell::unsync::OnceCell::new(),
            writeless_calls: Default::default(),
            writeless_warned: false,
        })
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The options the session was made with.
    pub fn options(&self) -> &SessionOptions {
        &self.options
    }

    /// The summary cache (its counters are `reuse_stats`).
    pub fn cache_mut(&mut self) -> &mut SummaryCache {
        &mut self.cache
    }

    /// The roots of a projection, as this session is configured.
    pub fn roots(&self) -> Roots<'_> {
        if self.options.all_globals {
            Roots::AllGlobals
        } else {
            Roots::Named(
                &self.prog,
                self.reach.get_or_init(|| Reach::new(&self.prog)),
            )
        }
    }

    fn layout_for(&mut self, ty: &ObjType) -> Option<LayoutId> {
        if let Some(l) = self.type_layouts.get(ty) {
            return *l;
        }
        if let ObjType::After { header, body } = ty {
            // Shared by name, as the types' layouts are: one per body and header.
            let l = self.layout_for(body).map(|b| {
                let after = crate::layout::Layout::after(*header, &self.prog.layouts[b as usize]);
                match self.prog.layouts.iter().position(|l| l.name == after.name) {
                    Some(i) => i as LayoutId,
                    None => self.prog.add_layout(after),
                }
            });
            self.type_layouts.insert(ty.clone(), l);
            return l;
        }
        // An LLVM type is named once (cached by its pointer), and shares the layout of
        // its name: the front end's for the module's structs.
        let l = ty.name().and_then(|name| {
            let bare = name.trim_start_matches('%');
            match self.prog.layouts.iter().position(|l| l.name == bare) {
                Some(i) => Some(i as LayoutId),
                None => self
                    .module
                    .layout_of_type_name(&name)
                    .map(|l| self.prog.add_layout(l)),
            }
        });
        self.type_layouts.insert(ty.clone(), l);
        l
    }

    /// Analyse the call of a snapshot. Errors name the snapshot.
    pub fn analyze_snapshot(&mut self, snap: &LoadedSnapshot) -> Result<ModRefReport> {
        let path = snap.snap.path.clone();
        self.check_snapshot(snap)
            .and_then(|_| self.analyze_state(snap, path.as_deref(), snap.snap.call.skipped))
            .map_err(|e| anyhow!("{}: {}", snap.name(), e))
            .map(|mut r| {
                r.snapshot = snap.name();
                r.stats.abstraction.state_objects = snap.snap.objects.len();
                r
            })
    }

    /// Check a snapshot against this session's module (`LoadedSnapshot::check_against`);
    /// the error does not name the snapshot.
    pub fn check_snapshot(&self, snap: &LoadedSnapshot) -> Result<()> {
        snap.check_against(&self.prog, self.module.pointer_bytes())
    }

    /// The points-to sets of a result, labelled, by variable name.
    pub fn points_to_labels(
        &self,
        abs: &AbstractState,
        result: &CallResult,
    ) -> std::collections::BTreeMap<String, Vec<String>> {
        let mut out = std::collections::BTreeMap::new();
        for &(v, i) in &result.points_to.vars {
            let mut name = self.prog.var_name(v).to_string();
            if out.contains_key(&name) {
                name = format!("{name}#{v}");
            }
            out.insert(
                name,
                CallResult::labels(&self.prog, abs, &result.points_to.sets[i as usize]),
            );
        }
        out
    }

    /// The `pspa.modref/1` report of an analysed call (`snapshot` left empty: the caller
    /// names it).
    pub fn modref_report(
        &self,
        function: &str,
        abs: &AbstractState,
        result: &CallResult,
        stats: CallStats,
    ) -> ModRefReport {
        ModRefReport {
            schema: "pspa.modref/1",
            snapshot: String::new(),
            function: function.to_string(),
            modset: CallResult::labels(&self.prog, abs, &result.modset),
            refset: CallResult::labels(&self.prog, abs, &result.refset),
            freeset: CallResult::labels(&self.prog, abs, &result.freeset),
            points_to: self
                .options
                .points_to
                .then(|| self.points_to_labels(abs, result)),
            stats,
        }
    }

    /// Write Integrity Testing colours (paper 6.3) at a call, from its state (`read`, as
    /// for `analyze_on_demand_after`), lacking the writes of the skipped calls still
    /// pending on its path (`posts`, oldest first): a fresh analysis that keeps its
    /// points-to sets (a cached summary may lack them), of everything the call can reach
    /// (the colours cover what it may reach, calls that end the process followed), joined
    /// with the pending post-states. The
    /// answer maps a live object to its location in the colours (`Answer::node_of`).
    pub fn wit_at(
        &mut self,
        read: &mut ReadState<'_>,
        posts: &[&PostState],
    ) -> Result<(Answer, WitColours)> {
        // Every write the code may make is coloured, those of code that ends the process
        // too (an atexit handler's).
        let call = CallOptions {
            eager: true,
            fresh: true,
            points_to: true,
            follow_exits: true,
            ..Default::default()
        };
        let (_, abs, result, _) = self.analyze_on_demand_after(read, posts, call)?;
        let colours = wit::colours(&self.prog, wit::Objects::State(&abs), &result.points_to);
        Ok((Answer::new(&abs, result), colours))
    }

    /// Analyse the call of a state. When `path` is given, post-states of earlier skipped
    /// calls on that path are merged in, and this call's post-state is kept if `skipped`.
    pub fn analyze_state(
        &mut self,
        st: &dyn SymbolicState,
        path: Option<&str>,
        skipped: bool,
    ) -> Result<ModRefReport> {
        let t = Instant::now();
        let (g, abs, result, mut stats) = if self.options.on_demand && path.is_none() {
            self.analyze_on_demand(&mut |sess, g, what| fetch(st, sess.roots(), g, what))?
        } else {
            let g = MemoryGraph::project(st, self.roots())?;
            let (abs, result, stats) = self.analyze_graph(&g, path, skipped)?;
            (g, abs, result, stats)
        };
        stats.total_ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(self.modref_report(&g.function, &abs, &result, stats))
    }

    /// The analysis of a projected state, without labels: the initial abstract state and
    /// the result relative to it (what the KLEE plugin needs on its hot path).
    pub fn analyze_graph(
        &mut self,
        g: &MemoryGraph,
        path: Option<&str>,
        skipped: bool,
    ) -> Result<(AbstractState, CallResult, CallStats)> {
        let posts = path
            .and_then(|p| self.paths.get(p))
            .cloned()
            .unwrap_or_default();
        let need_post = path.is_some() && skipped;
        let (abs, mut result, stats) =
            self.analyze_graph_after(g, &posts.iter().collect::<Vec<_>>(), need_post)?;
        if let (Some(p), true) = (path, need_post) {
            self.paths
                .entry(p.to_string())
                .or_default()
                .push(std::mem::take(&mut result.post));
        }
        Ok((abs, result, stats))
    }

    /// The analysis of a projected state that lacks the writes of skipped calls still
    /// pending on its path (paper 6.2): their post-states, oldest first, join the
    /// abstraction of `g` before solving, so the answer covers what they may have written.
    /// `need_post`: keep this call's post-state in the result (it is to be skipped).
    pub fn analyze_graph_after(
        &mut self,
        g: &MemoryGraph,
        posts: &[&PostState],
        need_post: bool,
    ) -> Result<(AbstractState, CallResult, CallStats)> {
        let call = CallOptions {
            keep_post: need_post,
            ..Default::default()
        };
        self.analyze_graph_with(g, posts, call)
    }

    /// `analyze_graph_after` with the call's own options (`call.eager` is moot: `g` is
    /// whole already).
    pub fn analyze_graph_with(
        &mut self,
        g: &MemoryGraph,
        posts: &[&PostState],
        call: CallOptions,
    ) -> Result<(AbstractState, CallResult, CallStats)> {
        let need_post = call.keep_post;
        let t = Instant::now();
        let (mut abs, abs_stats) = self.abstract_graph(g)?;
        let own = abs.objects.len();
        for post in posts {
            abs.merge(post);
        }
        abs.retain_reachable(own);
        let (result, reused, solve_ms, work) = self.solve_or_reuse(&abs, call)?;
        self.count_call(reused);
        debug_assert!(
            result.demand.is_empty(),
            "an eager projection has no opaque object"
        );
        assert!(
            !need_post || result.has_post,
            "a skipped call's answer keeps its post-state"
        );
        let stats = CallStats {
            abstraction: abs_stats,
            merged_post_states: posts.len(),
            live_functions: result.live_functions,
            reused,
            solve_ms,
            work,
            total_ms: t.elapsed().as_secs_f64() * 1e3,
            fetch_rounds: 0,
        };
        Ok((abs, result, stats))
    }

    /// Abs(g), with the layouts of the types it uses resolved.
    fn abstract_graph(&mut self, g: &MemoryGraph) -> Result<(AbstractState, AbsStats)> {
        for (o, _) in &g.objects {
            if let Some(ty) = &o.ty {
                if !self.type_layouts.contains_key(ty) {
                    self.layout_for(ty);
                }
            }
        }
        let cache = &self.type_layouts;
        AbstractState::abstract_graph(&self.prog, g, &|t: &ObjType| {
            cache.get(t).copied().flatten()
        })
    }

    /// The analysis of a call whose state is read on demand (no post-state: for calls
    /// that are not skipped). Each round solves (or reuses a summary of) a partial state:
    /// the roots, and what is reachable from them through the fields F (by layout) known
    /// to be read, each object reached read if its layout has a field in F, the rest
    /// opaque. A round's answer says which opaque objects it read and which fields; F
    /// grows by those and the next round fetches again, until an answer reads no opaque
    /// object. That answer is the answer over the whole projection: the contents left
    /// unread flow nowhere, so they cannot add a points-to fact, a mod or a ref (the
    /// fetched part is the same, and an opaque object is in the sets exactly when a
    /// pointer to it is).
    ///
    /// F starts with the fields earlier calls of the function read, so a call usually
    /// takes one round. A round's partial state is a function of the state and F, so two
    /// isomorphic states with the same F give isomorphic rounds, and reuse (keyed by the
    /// partial state, opaque objects included) takes each round from the cache.
    ///
    /// `read` lends the state (`ReadState`).
    pub fn analyze_on_demand(
        &mut self,
        read: &mut ReadState<'_>,
    ) -> Result<(MemoryGraph, AbstractState, CallResult, CallStats)> {
        self.analyze_on_demand_after(read, &[], CallOptions::default())
    }

    /// `analyze_on_demand` of a state that lacks the writes of skipped calls still pending
    /// on its path (paper 6.2): each round's partial state joins their post-states (oldest
    /// first), and what the join reaches that the state has but the round had not met
    /// (an object a pending call stored a pointer to) is met from the state and read on
    /// demand like the rest: its contents now, not as the post-state saw them.
    /// `call`: what this call asks beyond the session's options (its post-state kept,
    /// everything read first, a fresh solve with points-to sets).
    pub fn analyze_on_demand_after(
        &mut self,
        read: &mut ReadState<'_>,
        posts: &[&PostState],
        call: CallOptions,
    ) -> Result<(MemoryGraph, AbstractState, CallResult, CallStats)> {
        let t = Instant::now();
        let eager = call.eager || !self.options.on_demand;
        let mut g = MemoryGraph::default();
        read(self, &mut g, Fetch::Roots)?;
        let function = self.prog.function_by_name(&g.function);
        // A call bound to fail at its budget fails before its state is read: on SQLite,
        // reading cost each later call of an expression walker that went over it 87 ms.
        // (A cached summary of an earlier state that fitted could have answered a state
        // like it; such calls give that up.)
        if let Some(f) = function {
            self.fail_if_bound_to(f)?;
        }
        // Taken out and put back, not cloned: a function's keys can be hundreds (each
        // string constant `_asn1_set_name` copies is one), and a clone per call with
        // its derived sets rebuilt was a quarter of libtasn1's small misses. Keys of
        // rounds that completed before an error are kept: they are reads all the same.
        let mut fields = function
            .and_then(|f| self.predicted.remove(&f))
            .unwrap_or_default();
        let out = self.on_demand_rounds(read, posts, call, function, &mut g, &mut fields, t, eager);
        if let Some(f) = function {
            self.predicted.insert(f, fields);
        }
        let (abs, result, stats) = out?;
        Ok((g, abs, result, stats))
    }

    /// The rounds of `analyze_on_demand_after` from its roots: `fields` is what the
    /// function's calls read so far, extended by each round's reads.
    #[allow(clippy::too_many_arguments)]
    fn on_demand_rounds(
        &mut self,
        read: &mut ReadState<'_>,
        posts: &[&PostState],
        call: CallOptions,
        function: Option<FuncId>,
        g: &mut MemoryGraph,
        fields: &mut Predicted,
        t: Instant,
        eager: bool,
    ) -> Result<(AbstractState, CallResult, CallStats)> {
        let roots = g.objects.len();
        // Whether the last closure stopped at its budget (more of it is to be read).
        let mut cut = false;
        if eager || function.is_some_and(|f| self.heavy.contains(&f)) {
            // Its solves are heavy: one round over everything, not several.
            read(self, g, Fetch::All)?;
        } else {
            cut = self.fetch_closure(g, roots, fields, read)?;
        }
        let mut solve_total = 0.0;
        let mut work_total = 0;
        let mut reused_all = true;
        let mut rounds = 0;
        // Objects merged post-states reach that the state no longer has (freed since).
        let mut gone = rustc_hash::FxHashSet::default();
        loop {
            rounds += 1;
            let (mut abs, abs_stats) = self.abstract_graph(g)?;
            if !posts.is_empty() {
                let own = abs.objects.len();
                for post in posts {
                    abs.merge(post);
                }
                abs.retain_reachable(own);
                let missing: Vec<_> = abs.objects[own..]
                    .iter()
                    .filter_map(|o| o.uid)
                    .filter(|id| !gone.contains(id))
                    .collect();
                if !missing.is_empty() {
                    read(self, g, Fetch::Meet(&missing))?;
                    gone.extend(missing.into_iter().filter(|id| !g.index.contains_key(id)));
                    if eager {
                        read(self, g, Fetch::All)?;
                    }
                    continue;
                }
                // What is left of the merge is not the state's: static sites, and objects
                // freed since, whose post-state edges are all there is to them.
                for o in &mut abs.objects[own..] {
                    o.opaque = false;
                }
            }
            // The call's own budget bounds all its rounds together (a client's cheap call
            // must stay cheap however many rounds its projection takes).
            let round = CallOptions {
                max_work: call.max_work.map(|b| b.saturating_sub(work_total).max(1)),
                ..call
            };
            let (result, reused, solve_ms, work) = self.solve_or_reuse(&abs, round)?;
            solve_total += solve_ms;
            work_total += work;
            reused_all &= reused;
            let own_kind = self.solved_as_session(call);
            if let (Some(f), true, true) =
                (function, result.work > self.options.eager_work, own_kind)
            {
                self.heavy.insert(f);
            }
            let known = fields.len();
            fields.extend(&result.read_fields);
            if log::log_enabled!(log::Level::Debug) && !result.demand.is_empty() {
                let sites: Vec<String> = result
                    .demand
                    .iter()
                    .take(6)
                    .map(|&i| abs.objects[i as usize].label())
                    .collect();
                log::debug!(
                    "round {rounds} of `{}`: {} objects demanded ({}), {} fields known, {} new",
                    g.function,
                    result.demand.len(),
                    sites.join(", "),
                    known,
                    fields.len() - known
                );
            }
            if result.demand.is_empty() {
                self.count_call(reused_all);
                let st = &mut self.cache.stats;
                st.fetch_rounds += rounds as u64;
                st.objects_met += g.objects.len() as u64;
                st.objects_read += g.fetched_count() as u64;
                let stats = CallStats {
                    abstraction: abs_stats,
                    merged_post_states: posts.len(),
                    live_functions: result.live_functions,
                    reused: reused_all,
                    solve_ms: solve_total,
                    work: work_total,
                    total_ms: t.elapsed().as_secs_f64() * 1e3,
                    fetch_rounds: rounds,
                };
                return Ok((abs, result, stats));
            }
            // A round whose solve was heavy (a callee that reaches much of the program) is
            // not worth repeating for a few more objects: the rest is read at once, so
            // such a call solves at most twice.
            if rounds >= MAX_FETCH_ROUNDS || result.work > self.options.eager_work {
                read(self, g, Fetch::All)?;
                continue;
            }
            // What was demanded, always (progress), and the closure when F grew.
            read(self, g, Fetch::Objects(&result.demand))?;
            // A closure cut at its budget goes on too: otherwise a list longer than the
            // budget was read one cell a round, by demand.
            if fields.len() > known || cut {
                cut = self.fetch_closure(g, roots, fields, read)?;
            }
        }
    }

    /// Fetch, breadth first from the first `roots` objects of `g` and its globals, every
    /// object whose layout is that of a `Field` or `Layout` key of `fields` (or whose site
    /// is an `Untyped` or `Copied` key, or that an `ArgCopied` key's argument points to),
    /// following the slots of fetched objects whose
    /// `Field` key is in `fields` (at most `MAX_PREFETCH` objects a time). Deterministic:
    /// a function of the state and `fields`. Returns whether it stopped at that budget.
    fn fetch_closure(
        &mut self,
        g: &mut MemoryGraph,
        roots: usize,
        fields: &Predicted,
        read: &mut ReadState<'_>,
    ) -> Result<bool> {
        if fields.is_empty() {
            return Ok(false);
        }
        // Which objects may be read at all: those of a layout a load read, and the untyped
        // objects of a site read; and which of their fields are walked through (a load's
        // value went on from there). Untyped sites read (through loads: walked too), and
        // sites read without a load (fetched whatever their layout, walked no further).
        let (layouts, untyped_sites, copied_sites) =
            (&fields.layouts, &fields.untyped, &fields.copied);
        // The objects of the arguments whose objects a call read without a load.
        let arg_objs: rustc_hash::FxHashSet<u32> = fields
            .args
            .iter()
            .filter_map(|&k| g.args.get(k as usize))
            .flatten()
            .flatten()
            .filter_map(|t| match t {
                crate::state::Target::Object { id, .. } => g.index.get(id).copied(),
                _ => None,
            })
            .collect();
        let mut queue: VecDeque<u32> = (0..roots as u32).collect();
        queue.extend(g.globals.iter().map(|(_, id)| g.index[id]));
        // Globals met on the way (named by the functions whose addresses fetched objects
        // hold) are roots too.
        let mut globals_queued = g.globals.len();
        let mut seen = rustc_hash::FxHashSet::default();
        // At least as many as already fetched: each round re-solves what it has, so a
        // fixed step made a long list cost its length squared over the step; doubling
        // keeps the rounds' total within twice the last.
        let mut budget = MAX_PREFETCH.max(g.fetched_count());
        loop {
            let Some(i) = queue.pop_front() else {
                if g.globals.len() == globals_queued {
                    break;
                }
                queue.extend(
                    g.globals[globals_queued..]
                        .iter()
                        .map(|(_, id)| g.index[id]),
                );
                globals_queued = g.globals.len();
                continue;
            };
            if !seen.insert(i) {
                continue;
            }
            let layout = self.layout_of_object(g, i);
            let site = g.objects[i as usize].0.site.as_ref();
            let wanted = copied_sites.contains(site)
                || arg_objs.contains(&i)
                || match layout {
                    Some(l) => layouts.contains(&l),
                    None => untyped_sites.contains(site),
                };
            if !g.fetched[i as usize] {
                if !wanted {
                    continue;
                }
                if budget == 0 {
                    return Ok(true);
                }
                budget -= 1;
                read(self, g, Fetch::Objects(&[i]))?;
            }
            for sl in &g.objects[i as usize].1 {
                let follow = match layout {
                    Some(l) => fields.keys.contains(&ReadKey::Field(
                        l,
                        self.prog.layouts[l as usize].field_at(sl.offset as i64),
                    )),
                    None => untyped_sites.contains(g.objects[i as usize].0.site.as_ref()),
                };
                if !follow {
                    continue;
                }
                for t in &sl.targets {
                    if let crate::state::Target::Object { id, .. } = t {
                        queue.push_back(g.index[id]);
                    }
                }
            }
        }
        Ok(false)
    }

    /// The layout object `i` of `g` gets in the abstraction (None: field-insensitive).
    fn layout_of_object(&mut self, g: &MemoryGraph, i: u32) -> Option<LayoutId> {
        let o = &g.objects[i as usize].0;
        if g.symbolic_offset.contains(&o.id) {
            return None;
        }
        if g.is_global(o.id) {
            return self
                .prog
                .object_by_label(&o.site)
                .and_then(|po| self.prog.objects[po as usize].layout);
        }
        let ty = o.ty.as_ref()?;
        // Known types (all but a state's first of each) cost a lookup, not a clone.
        match self.type_layouts.get(ty) {
            Some(l) => *l,
            None => {
                let ty = ty.clone();
                self.layout_for(&ty)
            }
        }
    }
}

/// Answer an on-demand analysis' request from a state.
pub fn fetch(st: &dyn SymbolicState, roots: Roots, g: &mut MemoryGraph, what: Fetch) -> Result<()> {
    match what {
        Fetch::Roots => *g = MemoryGraph::start(st, roots)?,
        Fetch::Objects(ids) => {
            for &i in ids {
                g.fetch(st, roots, i)?;
            }
        }
        Fetch::All => g.fetch_all(st, roots)?,
        Fetch::Meet(ids) => {
            for &id in ids {
                g.meet(st, id)?;
            }
        }
    }
    Ok(())
}

/// How an on-demand analysis reads its state: it lends the state, and fills the graph
/// from the roots (`Fetch::Roots`) or fetches objects of it (`fetch` answers from a
/// `SymbolicState`).
pub type ReadState<'a> = dyn FnMut(&Session, &mut MemoryGraph, Fetch) -> Result<()> + 'a;

/// What an on-demand analysis asks of the state (see `Session::analyze_on_demand`).
pub enum Fetch<'a> {
    /// The projection's roots, opaque.
    Roots,
    /// The contents of these objects of the graph.
    Objects(&'a [u32]),
    /// Everything reachable (after `MAX_FETCH_ROUNDS` rounds).
    All,
    /// These objects of the state (opaque), which merged post-states reach: those the
    /// state still has.
    Meet(&'a [crate::state::StateObjId]),
}

/// Solver work (`SolverStats::work`) beyond which an on-demand round is followed by
/// reading the whole projection (about 20 ms of solving here).
pub const DEFAULT_EAGER_WORK: u64 = 10_000_000;

/// Objects fetched ahead of demand in one step, at most (or as many as already fetched).
const MAX_PREFETCH: usize = 1 << 14;

/// Calls of a function that may go over the work budget after a body round before its
/// later calls fail at once (as after one that went over in its first round).
const MAX_LATE_OVERRUNS: u32 = 2;

/// Rounds of an on-demand projection before the rest is read at once.
pub const MAX_FETCH_ROUNDS: usize = 16;
