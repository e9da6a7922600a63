//! Whole-program static analysis (SPA): solve from the global initialisers over every
//! defined function, then report mod/ref and points-to with stable labels.
//!
//! Labels: `SITE.N` for abstract field N, `SITE.*` for a field-insensitive object, where SITE
//! is `global:NAME`, `stack:F:VAR`, `heap:F:LINE` or `func:NAME`.

use crate::facts::{FuncId, ObjId, Program};
use crate::modref::{self, ModRef};
use crate::solver::{Node, Solver, SolverStats};
use roaring::RoaringBitmap;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::Instant;

pub struct Analysis<'p> {
    pub solver: Solver<'p>,
    pub modref: ModRef,
    pub solve_ms: f64,
    /// Labels of all locations, made once when a report needs them.
    index: once_cell::unsync::OnceCell<LabelIndex>,
}

/// Every location's label, and its rank in label order: sets are sorted by rank instead of
/// formatting and comparing strings per element (most of a large report's time).
struct LabelIndex {
    /// By node: the rank of its label in `sorted` (u32::MAX for variable nodes).
    by_node: Vec<u32>,
    sorted: Vec<String>,
}

/// Sets are label lists (`Vec<String>`), or, for writing, [`Labelled`] sets that are
/// labelled only while they are written.
#[derive(Serialize)]
pub struct FunctionSets<S = Vec<String>> {
    #[serde(rename = "mod")]
    pub modset: S,
    #[serde(rename = "ref")]
    pub refset: S,
}

#[derive(Serialize)]
pub struct Report<S = Vec<String>> {
    pub schema: &'static str,
    pub module: String,
    pub functions: BTreeMap<String, FunctionSets<S>>,
    pub pointers: BTreeMap<String, S>,
    /// What each abstract field holding pointers may point to (left out with --no-memory).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub memory: BTreeMap<String, S>,
    pub stats: serde_json::Value,
}

/// Where a reported set comes from.
#[derive(Clone, Copy)]
pub enum SetOf {
    Mod(FuncId),
    Ref(FuncId),
    /// The may-free set.
    Free(FuncId),
    /// The points-to set of a node.
    PointsTo(Node),
}

/// A set written as its sorted labels, made when it is written: a whole-program report
/// of SQLite holds 70 million labels, which as strings took 9 GB.
pub struct Labelled<'a, 'p> {
    a: &'a Analysis<'p>,
    of: SetOf,
}

impl<'a> Labelled<'a, '_> {
    /// The set's sorted labels, made now.
    pub fn labels(&self) -> Vec<&'a str> {
        let a = self.a;
        match self.of {
            SetOf::Mod(f) => a.label_refs(&a.modref.modset[f as usize]),
            SetOf::Ref(f) => a.label_refs(&a.modref.refset[f as usize]),
            SetOf::Free(f) => a.label_refs(&a.modref.freeset[f as usize]),
            SetOf::PointsTo(n) => a.label_refs(&a.solver.points_to(n)),
        }
    }
}

impl Serialize for Labelled<'_, '_> {
    fn serialize<Ser: serde::Serializer>(&self, ser: Ser) -> Result<Ser::Ok, Ser::Error> {
        self.labels().serialize(ser)
    }
}

/// Solve the whole program: every defined function is an entry (library code may be called
/// from anywhere), starting from the global initialisers.
pub fn analyze(prog: &Program) -> Analysis<'_> {
    analyze_from(Solver::new(prog), &spa_entries(prog))
}

/// The entries of the whole-program analysis: every defined function but those whose body
/// a model replaces (`Function::body_replaced`). Those are analysed where they are called:
/// each call applies the model, and the function's own sets are the model's over all its
/// calls' arguments. As an entry it would apply the whole model to those at once (what an
/// entry of a past-sensitive analysis does with the state's arguments), mixing the calls'
/// copies; never called, its formals point nowhere and its sets are empty either way.
pub fn spa_entries(prog: &Program) -> Vec<FuncId> {
    (0..prog.functions.len() as FuncId)
        .filter(|&f| {
            let func = &prog.functions[f as usize];
            func.defined && !func.body_replaced()
        })
        .collect()
}

/// Solve from a prepared (possibly seeded) solver over what `entries` reach.
pub fn analyze_from<'p>(solver: Solver<'p>, entries: &[FuncId]) -> Analysis<'p> {
    analyze_from_with(solver, entries, true)
}

/// `analyze_from`; without `sets`, only `ModRef::walked` is computed (see
/// `modref::walked`), the caller computing the sets when it needs them.
pub fn analyze_from_with<'p>(
    mut solver: Solver<'p>,
    entries: &[FuncId],
    sets: bool,
) -> Analysis<'p> {
    let t = Instant::now();
    solver.solve(entries);
    log::debug!("solved; resident {} MB", resident_mb());
    log::debug!(
        "{} rounds, {} nodes, {} copy edges, work {}",
        solver.stats.rounds,
        solver.num_nodes(),
        solver.stats.copy_edges,
        solver.stats.work
    );
    // An incomplete solve has no meaningful mod/ref: its caller gives up on it, or solves
    // again with the bodies it demanded.
    let modref = if solver.over_budget || !solver.demanded_bodies.is_empty() {
        ModRef::default()
    } else if sets {
        modref::compute(&solver)
    } else {
        ModRef {
            walked: modref::walked(&solver),
            ..Default::default()
        }
    };
    log::debug!("mod/ref computed; resident {} MB", resident_mb());
    Analysis {
        solver,
        modref,
        solve_ms: t.elapsed().as_secs_f64() * 1e3,
        index: Default::default(),
    }
}

/// Resident memory of this process (Linux), for the debug log; 0 elsewhere.
pub fn resident_mb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map(|kb| kb / 1024)
        .unwrap_or(0)
}

impl<'p> Analysis<'p> {
    pub fn prog(&self) -> &'p Program {
        self.solver.prog
    }

    /// The label of a location, e.g. `heap:table_insert:32.1`.
    pub fn label(&self, loc: Node) -> String {
        let s = &self.solver;
        let o = s.obj_of(loc);
        let field = if s.is_fi(o) {
            crate::site::Field::All
        } else {
            crate::site::Field::At(s.field_of(loc))
        };
        crate::site::location(&s.objs[o as usize].name(), field)
    }

    pub fn labels(&self, set: &RoaringBitmap) -> Vec<String> {
        self.label_refs(set)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// The sorted, distinct labels of a set of locations, borrowed from the index.
    pub fn label_refs(&self, set: &RoaringBitmap) -> Vec<&str> {
        let ix = self.index.get_or_init(|| self.build_index());
        let mut ranks: Vec<u32> = set.iter().map(|l| ix.by_node[l as usize]).collect();
        ranks.sort_unstable();
        ranks.dedup();
        ranks
            .into_iter()
            .map(|r| ix.sorted[r as usize].as_str())
            .collect()
    }

    fn build_index(&self) -> LabelIndex {
        let s = &self.solver;
        let n = s.num_nodes();
        let mut labelled: Vec<(String, u32)> = Vec::new();
        for ob in s.objs.iter() {
            for k in 0..ob.nfields.max(1) {
                labelled.push((self.label(ob.base + k), ob.base + k));
            }
        }
        labelled.sort_unstable();
        let mut by_node = vec![u32::MAX; n];
        let mut sorted: Vec<String> = Vec::new();
        for (l, node) in labelled {
            if sorted.last() != Some(&l) {
                sorted.push(l);
            }
            by_node[node as usize] = (sorted.len() - 1) as u32;
        }
        LabelIndex { by_node, sorted }
    }

    pub fn function(&self, name: &str) -> Option<FuncId> {
        self.prog().function_by_name(name)
    }

    pub fn mod_of(&self, f: FuncId) -> Vec<String> {
        self.set_labels(SetOf::Mod(f))
    }

    pub fn ref_of(&self, f: FuncId) -> Vec<String> {
        self.set_labels(SetOf::Ref(f))
    }

    /// The locations of the objects `f` may free.
    pub fn free_of(&self, f: FuncId) -> Vec<String> {
        self.set_labels(SetOf::Free(f))
    }

    /// The sorted labels of a set.
    pub fn set_labels(&self, of: SetOf) -> Vec<String> {
        Labelled { a: self, of }
            .labels()
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// Points-to of every source-level pointer variable (`F::v`, `::g`).
    pub fn pointers(&self) -> BTreeMap<String, Vec<String>> {
        self.pointers_where(|_| true, |of| self.set_labels(of))
    }

    /// Points-to of the source-level pointer variables whose name `keep` accepts.
    pub fn pointers_where<S>(
        &self,
        keep: impl Fn(&str) -> bool,
        mk: impl Fn(SetOf) -> S,
    ) -> BTreeMap<String, S> {
        let s = &self.solver;
        self.prog()
            .source_vars
            .iter()
            .filter(|v| keep(&v.name))
            .map(|v| {
                (
                    v.name.clone(),
                    mk(SetOf::PointsTo(s.objs[v.obj as usize].base)),
                )
            })
            .collect()
    }

    /// Points-to of every abstract field that may hold a pointer.
    pub fn memory(&self) -> BTreeMap<String, Vec<String>> {
        self.memory_with(|of| self.set_labels(of))
    }

    fn memory_with<S>(&self, mk: impl Fn(SetOf) -> S) -> BTreeMap<String, S> {
        let s = &self.solver;
        let mut out = BTreeMap::new();
        for o in 0..s.objs.len() as ObjId {
            for field in s.field_range(o) {
                if s.points_to_len(field) > 0 {
                    out.insert(self.label(field), mk(SetOf::PointsTo(field)));
                }
            }
        }
        out
    }

    /// The label of byte `offset` of the object labelled `obj_label`.
    pub fn loc_label(&self, obj_label: &str, offset: i64) -> Option<String> {
        let s = &self.solver;
        let o = s.objs.iter().position(|ob| ob.name() == obj_label)? as u32;
        Some(self.label(s.loc(o, offset)))
    }

    pub fn stats(&self) -> serde_json::Value {
        let prog = self.prog();
        let s = &self.solver;
        // Average / maximum points-to set size over the pointer variables that point
        // somewhere (what SVF reports as average points-to size).
        let (mut n, mut total, mut max) = (0usize, 0u64, 0u64);
        // Merged variables share one set: size it once.
        let mut by_rep: rustc_hash::FxHashMap<u32, u64> = Default::default();
        for v in 0..prog.num_vars {
            let len = *by_rep
                .entry(s.find_ro(v))
                .or_insert_with(|| s.points_to_len(v));
            if len > 0 {
                n += 1;
                total += len;
                max = max.max(len);
            }
        }
        let st: &SolverStats = &s.stats;
        serde_json::json!({
            "functions_defined": prog.stats.defined_functions,
            "functions_declared": prog.stats.declared_functions,
            "instructions": prog.stats.instructions,
            "objects": s.objs.len(),
            "variables": prog.num_vars,
            "constraints": prog.num_constraints(),
            "solver": st,
            "pointer_vars_nonempty": n,
            "avg_points_to": if n == 0 { 0.0 } else { total as f64 / n as f64 },
            "max_points_to": max,
            "unknown_externals": prog.stats.unknown_externals,
            "unknown_external_calls": prog.stats.unknown_externals.values().sum::<usize>(),
            "unsupported": prog.stats.unsupported,
            "svf_blind_spots": prog.stats.svf_blind_spots,
            "solve_ms": self.solve_ms,
        })
    }

    /// The `pspa.analysis/1` report, restricted to `only` functions when non-empty; the
    /// `memory` map only when asked and unrestricted.
    pub fn report(&self, only: &[String], memory: bool) -> Report {
        self.report_with(only, memory, |of| self.set_labels(of))
    }

    /// The report with sets labelled as they are written (for large programs).
    pub fn report_lazy<'a>(&'a self, only: &[String], memory: bool) -> Report<Labelled<'a, 'p>> {
        self.report_with(only, memory, |of| Labelled { a: self, of })
    }

    fn report_with<S>(&self, only: &[String], memory: bool, mk: impl Fn(SetOf) -> S) -> Report<S> {
        let prog = self.prog();
        let mut functions = BTreeMap::new();
        for (f, func) in prog.functions.iter().enumerate() {
            if !func.defined || !(only.is_empty() || only.contains(&func.name)) {
                continue;
            }
            functions.insert(
                func.name.clone(),
                FunctionSets {
                    modset: mk(SetOf::Mod(f as FuncId)),
                    refset: mk(SetOf::Ref(f as FuncId)),
                },
            );
        }
        // With a function filter, label only what is reported: labelling every set of a
        // large program costs gigabytes of strings.
        let (pointers, memory) = if only.is_empty() {
            (
                self.pointers_where(|_| true, &mk),
                if memory {
                    self.memory_with(&mk)
                } else {
                    BTreeMap::new()
                },
            )
        } else {
            let prefixes: Vec<String> = only.iter().map(|f| format!("{}::", f)).collect();
            (
                self.pointers_where(|k| prefixes.iter().any(|p| k.starts_with(p)), &mk),
                BTreeMap::new(),
            )
        };
        Report {
            schema: "pspa.analysis/1",
            module: prog.module.clone(),
            functions,
            pointers,
            memory,
            stats: self.stats(),
        }
    }
}
