//! A past-sensitive analysis session: one program, a sequence of states at call sites.
//!
//! For each state: project its memory graph (4.1), abstract it (4.3), merge the post-states
//! of earlier *skipped* calls on the same path (6.2), solve from it over the callee, and
//! report the call's mod/ref. Used by `pspa modref` on snapshots and, later, by the KLEE
//! plugin on live states.

use crate::abstraction::{AbsLoc, AbsStats, AbstractState, PostState};
use crate::facts::{FuncId, LayoutId, Program};
use crate::slice::{ProgramIndex, Slice};
use rustc_hash::FxHashMap;
use std::rc::Rc;
use crate::frontend::{self, FrontOptions, Module};
use crate::local::{self, CallResult};
use crate::summaries::{ReuseStats, SummaryCache};
use crate::memory_graph::{MemoryGraph, Roots};
use crate::reach::Reach;
use crate::snapshot::LoadedSnapshot;
use crate::state::SymbolicState;
use anyhow::{anyhow, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;
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
    pub total_ms: f64,
}

pub struct Session {
    pub prog: Program,
    module: Module,
    type_layouts: HashMap<String, Option<LayoutId>>,
    /// Post-states of skipped calls, per execution path.
    paths: HashMap<String, Vec<PostState>>,
    /// Summaries for reuse, and the counters of every call.
    pub cache: SummaryCache,
    /// Off: every call is analysed (`--no-reuse`).
    pub reuse: bool,
    /// Project from every global, not only those the callee names (the reference).
    pub all_globals: bool,
    reach: once_cell::unsync::OnceCell<Reach>,
    /// Solve misses over the call's slice of the program (off: over the whole program,
    /// the reference the slices are checked against).
    pub slices_on: bool,
    slices: FxHashMap<Vec<FuncId>, Rc<Slice>>,
    slice_index: once_cell::unsync::OnceCell<ProgramIndex>,
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
        .map(|l| {
            let (head, field) = l.rsplit_once('.').unwrap_or((l, ""));
            let head = match head.rfind('@') {
                Some(i) if head[i + 1..].chars().all(|c| c.is_ascii_digit()) && i + 1 < head.len() => &head[..i],
                _ => head,
            };
            format!("{}.{}", head, field)
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

impl Session {
    /// Reuse a cached summary of an isomorphic state, or solve and cache.
    fn solve_or_reuse(&mut self, abs: &AbstractState, need_post: bool) -> (CallResult, bool, f64) {
        self.cache.stats.invocations += 1;
        let mut canon = None;
        if self.reuse {
            let t = Instant::now();
            let c = self.cache.canonicalize(abs);
            let hit = self.cache.lookup(abs, &c, need_post);
            self.cache.stats.check_ms += t.elapsed().as_secs_f64() * 1e3;
            if let Some(hit) = hit {
                self.cache.stats.reuse_hits += 1;
                self.cache.stats.update_ratio();
                return (hit, true, 0.0);
            }
            canon = Some(c);
        }
        let t = Instant::now();
        let result = if self.slices_on {
            let slice = self.slice_for(abs);
            let ca = local::analyze_call(&self.prog, abs, Some(&slice));
            ca.result(abs, need_post)
        } else {
            local::analyze_call(&self.prog, abs, None).result(abs, need_post)
        };
        let solve_ms = t.elapsed().as_secs_f64() * 1e3;
        self.cache.stats.analyses += 1;
        self.cache.stats.solve_ms += solve_ms;
        self.cache.stats.update_ratio();
        if let Some(c) = canon {
            self.cache.insert(abs.function, c, result.clone());
        }
        (result, false, solve_ms)
    }

    /// The slice a miss solves over: the callee and the functions the state points to,
    /// with what they reach (cached per set of roots; a few per callee in practice).
    fn slice_for(&mut self, abs: &AbstractState) -> Rc<Slice> {
        let mut roots: Vec<FuncId> = vec![abs.function];
        let funcs = abs.args.iter().flatten().chain(abs.edges.iter().map(|(_, t)| t));
        roots.extend(funcs.filter_map(|l| match *l {
            AbsLoc::Func(f) => Some(f),
            AbsLoc::Field { .. } => None,
        }));
        roots.sort_unstable();
        roots.dedup();
        // A slice copies the program's layouts: one made before a state brought a new type
        // (`layout_for`) lacks it, and is made again.
        if let Some(sl) = self.slices.get(&roots).filter(|sl| sl.prog.layouts.len() == self.prog.layouts.len()) {
            return sl.clone();
        }
        if self.slices.len() >= MAX_SLICES {
            self.slices.clear();
        }
        let reach = self.reach.get_or_init(|| Reach::new(&self.prog));
        // Objects, constraints and initialisers never change after the front end (states
        // only add layouts), so the index is built once.
        let index = self.slice_index.get_or_init(|| ProgramIndex::new(&self.prog));
        let sl = Rc::new(Slice::new(&self.prog, reach, index, &roots));
        self.slices.insert(roots, sl.clone());
        sl
    }

    /// Reuse statistics.
    pub fn reuse_stats(&self) -> ReuseStats {
        self.cache.stats.clone()
    }

    pub fn open(module: &Path, opts: &FrontOptions) -> Result<Session> {
        let m = frontend::load(module)?;
        Session::from_module(m, opts)
    }

    /// A session over a module already loaded (or borrowed from KLEE).
    pub fn from_module(m: Module, opts: &FrontOptions) -> Result<Session> {
        let prog = frontend::extract(&m, opts).map_err(|e| anyhow!("{}: {}", m.path.display(), e))?;
        Ok(Session {
            prog,
            module: m,
            type_layouts: HashMap::new(),
            paths: HashMap::new(),
            cache: SummaryCache::new(DEFAULT_ENTRIES_PER_FUNCTION),
            reuse: true,
            all_globals: false,
            reach: once_cell::unsync::OnceCell::new(),
            slices_on: true,
            slices: FxHashMap::default(),
            slice_index: once_cell::unsync::OnceCell::new(),
        })
    }

    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The roots of a projection, as this session is configured.
    pub fn roots(&self) -> Roots<'_> {
        if self.all_globals {
            Roots::AllGlobals
        } else {
            Roots::Named(&self.prog, self.reach.get_or_init(|| Reach::new(&self.prog)))
        }
    }

    fn layout_for(&mut self, name: &str) -> Option<LayoutId> {
        if let Some(l) = self.type_layouts.get(name) {
            return *l;
        }
        let bare = name.trim_start_matches('%');
        let l = match self.prog.layouts.iter().position(|l| l.name == bare) {
            Some(i) => Some(i as LayoutId),
            None => self.module.layout_of_type_name(name).map(|l| self.prog.add_layout(l)),
        };
        self.type_layouts.insert(name.to_string(), l);
        l
    }

    /// Analyse the call of a snapshot. Errors name the snapshot.
    pub fn analyze_snapshot(&mut self, snap: &LoadedSnapshot) -> Result<ModRefReport> {
        let path = snap.snap.path.clone();
        self.analyze_state(snap, path.as_deref(), snap.snap.call.skipped)
            .map_err(|e| anyhow!("{}: {}", snap.name(), e))
            .map(|mut r| {
                r.snapshot = snap.name();
                r.stats.abstraction.state_objects = snap.snap.objects.len();
                r
            })
    }

    /// Analyse the call of a state. When `path` is given, post-states of earlier skipped
    /// calls on that path are merged in, and this call's post-state is kept if `skipped`.
    pub fn analyze_state(&mut self, st: &dyn SymbolicState, path: Option<&str>, skipped: bool) -> Result<ModRefReport> {
        let t = Instant::now();
        let g = MemoryGraph::project(st, self.roots())?;
        let (abs, result, mut stats) = self.analyze_graph(&g, path, skipped)?;
        stats.total_ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(ModRefReport {
            schema: "pspa.modref/1",
            snapshot: String::new(),
            function: g.function.clone(),
            modset: CallResult::labels(&abs, &result.modset),
            refset: CallResult::labels(&abs, &result.refset),
            stats,
        })
    }

    /// The analysis of a projected state, without labels: the initial abstract state and
    /// the result relative to it (what the KLEE plugin needs on its hot path).
    pub fn analyze_graph(
        &mut self,
        g: &MemoryGraph,
        path: Option<&str>,
        skipped: bool,
    ) -> Result<(AbstractState, CallResult, CallStats)> {
        let t = Instant::now();
        for (o, _) in &g.objects {
            if let Some(ty) = &o.ty {
                if !self.type_layouts.contains_key(ty) {
                    self.layout_for(ty);
                }
            }
        }
        let cache = &self.type_layouts;
        let (mut abs, abs_stats) =
            AbstractState::abstract_graph(&self.prog, g, &|name: &str| cache.get(name).copied().flatten())?;
        let mut merged = 0;
        if let Some(p) = path {
            for post in self.paths.get(p).map(|v| v.as_slice()).unwrap_or(&[]) {
                abs.merge(post);
                merged += 1;
            }
        }
        let need_post = path.is_some() && skipped;
        let (mut result, reused, solve_ms) = self.solve_or_reuse(&abs, need_post);
        let stats = CallStats {
            abstraction: abs_stats,
            merged_post_states: merged,
            live_functions: result.live_functions,
            reused,
            solve_ms,
            total_ms: t.elapsed().as_secs_f64() * 1e3,
        };
        if let (Some(p), true) = (path, need_post) {
            self.paths.entry(p.to_string()).or_default().push(std::mem::take(&mut result.post));
        }
        Ok((abs, result, stats))
    }
}
