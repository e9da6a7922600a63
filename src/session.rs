//! A past-sensitive analysis session: one program, a sequence of states at call sites.
//!
//! For each state: project its memory graph (4.1), abstract it (4.3), merge the post-states
//! of earlier *skipped* calls on the same path (6.2), solve from it over the callee, and
//! report the call's mod/ref. Used by `pspa modref` on snapshots and, later, by the KLEE
//! plugin on live states.

use crate::abstraction::{AbsStats, AbstractState, PostState};
use crate::facts::{LayoutId, Program};
use crate::frontend::{self, FrontOptions, Module};
use crate::local;
use crate::memory_graph::MemoryGraph;
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
    pub solve_ms: f64,
    pub total_ms: f64,
}

pub struct Session {
    pub prog: Program,
    module: Module,
    type_layouts: HashMap<String, Option<LayoutId>>,
    /// Post-states of skipped calls, per execution path.
    paths: HashMap<String, Vec<PostState>>,
}

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
    pub fn open(module: &Path, opts: &FrontOptions) -> Result<Session> {
        let m = frontend::load(module)?;
        let prog = frontend::extract(&m, opts).map_err(|e| anyhow!("{}: {}", module.display(), e))?;
        Ok(Session { prog, module: m, type_layouts: HashMap::new(), paths: HashMap::new() })
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
        let g = MemoryGraph::project(st)?;
        let types: Vec<String> = g.objects.values().filter_map(|o| o.ty.clone()).collect();
        for ty in &types {
            self.layout_for(ty);
        }
        let cache = &self.type_layouts;
        let (mut abs, abs_stats) =
            AbstractState::abstract_graph(&self.prog, &g, &|name: &str| cache.get(name).copied().flatten())?;
        let mut merged = 0;
        if let Some(p) = path {
            for post in self.paths.get(p).map(|v| v.as_slice()).unwrap_or(&[]) {
                abs.merge(&self.prog, post);
                merged += 1;
            }
        }
        let f = abs.function;
        let ca = local::analyze_call(&self.prog, &abs);
        let eff = ca.effects(f);
        let stats = CallStats {
            abstraction: abs_stats,
            merged_post_states: merged,
            live_functions: ca.analysis.solver.stats.live_functions,
            solve_ms: ca.analysis.solve_ms,
            total_ms: t.elapsed().as_secs_f64() * 1e3,
        };
        if let (Some(p), true) = (path, skipped) {
            let post = ca.post_state(&abs);
            self.paths.entry(p.to_string()).or_default().push(post);
        }
        Ok(ModRefReport {
            schema: "pspa.modref/1",
            snapshot: String::new(),
            function: g.function.clone(),
            modset: eff.modset,
            refset: eff.refset,
            stats,
        })
    }
}
