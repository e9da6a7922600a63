//! The bridge to the KLEE plugin (cpp-shim/): the core's entry points, callable from C++.
//!
//! Everything here is panic-safe: a panic is caught and becomes a failed result (the
//! plugin then takes the conservative answer and warns once); it never unwinds into C++.
//! No `Result` crosses the bridge (it would throw, and KLEE is built without exceptions).

use crate::facts::FuncId;
use crate::frontend::{FrontOptions, Module};
use crate::local::CallResult;
use crate::memory_graph::MemoryGraph;
use crate::session::{ModRefReport, Session};
use crate::state::{PointerSlot, StateObjId, StateObject, SymbolicState, Target};
use rustc_hash::FxHashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;

#[cxx::bridge(namespace = "pspa")]
pub mod ffi {
    /// An object of the state. `site`: its `allocSite` (`llvm::Value*`); `type_name`:
    /// its LLVM type as printed, empty when unknown.
    struct ObjectFfi {
        id: u64,
        site: usize,
        size: u64,
        type_name: String,
    }
    /// kind 0: byte `offset` of `object` (any offset when !offset_known); 1: the function
    /// at `function` (`llvm::Function*`); 2: null; 3: unknown (may point anywhere:
    /// symbolic input in a pointer-typed field, or too many targets to list).
    struct TargetFfi {
        kind: u8,
        object: u64,
        offset: u64,
        offset_known: bool,
        function: usize,
    }
    struct SlotFfi {
        offset: u64,
        targets: Vec<TargetFfi>,
    }
    struct GlobalFfi {
        site: usize,
        object: u64,
    }
    /// One analysed call. Sizes as in the paper's Table 1: stripped = uniqueness removed.
    struct CallReport {
        ok: bool,
        reused: bool,
        mod_size: usize,
        ref_size: usize,
        mod_stripped: usize,
        ref_stripped: usize,
        /// Objects the projection met, and how many of them it read (on demand, only
        /// those whose contents the analysis needed).
        projected_objects: usize,
        read_objects: usize,
        micros: u64,
        message: String,
        /// The mod or ref set has `unknown` (a value that may point anywhere was used): a
        /// client must treat the call as touching anything.
        unknown: bool,
    }
    struct EngineStats {
        invocations: u64,
        analyses: u64,
        reuse_hits: u64,
        check_micros: u64,
        solve_micros: u64,
        failures: u64,
        /// Time reading states (projection through the StateView).
        read_micros: u64,
        miss_new_function: u64,
        miss_objects: u64,
        miss_edges: u64,
        miss_no_iso: u64,
        solver_runs: u64,
        /// Calls given up at the work budget (counted in failures too).
        over_budget: u64,
        fetch_rounds: u64,
        objects_met: u64,
        objects_read: u64,
    }

    extern "Rust" {
        type Engine;
        /// An engine over KLEE's module (`llvm::Module*`). spa: whole-program analysis once;
        /// else past-sensitive at each call. Check `engine_error` before use.
        /// all_globals: project from every global (the reference), not only those the
        /// callee names. eager: read every reachable object before solving (the
        /// reference), not only those the analysis reads. max_work: a call whose solve
        /// does more work fails (conservatively); 0: no bound.
        fn engine_new(module: usize, module_name: &str, spa: bool, reuse: bool, all_globals: bool, eager: bool, max_work: u64) -> Box<Engine>;
        fn engine_error(e: &Engine) -> String;
        /// Analyse the call of `function` (`llvm::Function*`) in `state`; when `dump` is not
        /// empty, also write the state as a `pspa.snapshot/1` file there.
        fn engine_analyze(e: &mut Engine, state: &StateView, function: usize, dump: &str) -> CallReport;
        fn engine_stats(e: &Engine) -> EngineStats;
        /// Write KLEE's module as bitcode (what dumped snapshots refer to).
        fn engine_write_module(e: &Engine, path: &str) -> bool;
    }

    unsafe extern "C++" {
        include!("pspa/state_view.h");
        type StateView;
        fn num_args(self: &StateView) -> usize;
        fn arg(self: &StateView, i: usize, out: &mut Vec<TargetFfi>) -> bool;
        fn globals(self: &StateView) -> Vec<GlobalFfi>;
        fn object(self: &StateView, id: u64, out: &mut ObjectFfi) -> bool;
        fn pointer_slots(self: &StateView, id: u64) -> Vec<SlotFfi>;
    }
}

pub struct Engine {
    session: Option<Session>,
    error: String,
    spa: bool,
    /// SPA mode: the whole-program mod/ref sizes of each function, computed once.
    spa_sets: Vec<(usize, usize)>,
    failures: u64,
    spa_calls: u64,
    /// Global name -> KLEE object id. KLEE allocates every global once, before `main`, and
    /// every state shares those objects: read once, at the first call.
    globals: Option<FxHashMap<String, StateObjId>>,
    read_micros: u64,
}

/// A caught panic's message, for the plugin's one warning.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_default()
}

fn engine_new(module: usize, module_name: &str, spa: bool, reuse: bool, all_globals: bool, eager: bool, max_work: u64) -> Box<Engine> {
    // Panics are caught at every entry point and reported once by the plugin as a warning;
    // the default hook would print each one, with a backtrace, into KLEE's output.
    std::panic::set_hook(Box::new(|info| log::debug!("pspa: {info}")));
    let r = catch_unwind(AssertUnwindSafe(|| -> anyhow::Result<Engine> {
        // SAFETY: the plugin passes KLEE's live module, which outlives the engine.
        let m = unsafe { Module::borrowed(module as llvm_sys::prelude::LLVMModuleRef, PathBuf::from(module_name)) };
        let mut session = Session::from_module(m, &FrontOptions::default())?;
        session.reuse = reuse;
        session.all_globals = all_globals;
        session.on_demand = !eager;
        session.max_work = (max_work > 0).then_some(max_work);
        let mut spa_sets = Vec::new();
        if spa {
            let a = crate::analysis::analyze(&session.prog);
            spa_sets = (0..session.prog.functions.len() as FuncId).map(|f| (a.mod_of(f).len(), a.ref_of(f).len())).collect();
        }
        Ok(Engine { session: Some(session), error: String::new(), spa, spa_sets, failures: 0, spa_calls: 0, globals: None, read_micros: 0 })
    }));
    Box::new(match r {
        Ok(Ok(e)) => e,
        Ok(Err(e)) => Engine::failed(format!("{:#}", e)),
        Err(_) => Engine::failed("internal error (panic) while reading the module".into()),
    })
}

impl Engine {
    fn failed(error: String) -> Engine {
        Engine { session: None, error, spa: false, spa_sets: Vec::new(), failures: 0, spa_calls: 0, globals: None, read_micros: 0 }
    }
}

fn engine_error(e: &Engine) -> String {
    e.error.clone()
}

fn engine_write_module(e: &Engine, path: &str) -> bool {
    e.session.as_ref().is_some_and(|s| s.module().write_bitcode(std::path::Path::new(path)).is_ok())
}

fn engine_stats(e: &Engine) -> ffi::EngineStats {
    let r = e.session.as_ref().map(|s| s.reuse_stats()).unwrap_or_default();
    ffi::EngineStats {
        invocations: r.invocations + e.spa_calls,
        analyses: r.analyses,
        reuse_hits: r.reuse_hits,
        check_micros: (r.check_ms * 1e3) as u64,
        solve_micros: (r.solve_ms * 1e3) as u64,
        failures: e.failures,
        read_micros: e.read_micros,
        miss_new_function: r.miss_new_function,
        miss_objects: r.miss_objects,
        miss_edges: r.miss_edges,
        miss_no_iso: r.miss_other,
        solver_runs: r.solver_runs,
        over_budget: r.over_budget,
        fetch_rounds: r.fetch_rounds,
        objects_met: r.objects_met,
        objects_read: r.objects_read,
    }
}

fn failed_report(message: String) -> ffi::CallReport {
    ffi::CallReport {
        ok: false,
        reused: false,
        mod_size: 0,
        ref_size: 0,
        mod_stripped: 0,
        ref_stripped: 0,
        projected_objects: 0,
        read_objects: 0,
        micros: 0,
        message,
        unknown: false,
    }
}

fn engine_analyze(e: &mut Engine, state: &ffi::StateView, function: usize, dump: &str) -> ffi::CallReport {
    let t = std::time::Instant::now();
    let r = catch_unwind(AssertUnwindSafe(|| analyze(e, state, function, dump)));
    let mut rep = match r {
        Ok(Ok(rep)) => rep,
        Ok(Err(err)) => failed_report(format!("{:#}", err)),
        Err(p) => failed_report(format!("internal error (panic) in the analysis: {}", panic_message(&*p))),
    };
    if !rep.ok {
        e.failures += 1;
    }
    rep.micros = t.elapsed().as_micros() as u64;
    rep
}

fn analyze(e: &mut Engine, state: &ffi::StateView, function: usize, dump: &str) -> anyhow::Result<ffi::CallReport> {
    let Some(session) = e.session.as_mut() else { anyhow::bail!("no analysis: {}", e.error) };
    let Some(&f) = session.prog.site_functions.get(&function) else { anyhow::bail!("unknown function") };
    if e.spa {
        e.spa_calls += 1;
        let (m, r) = e.spa_sets[f as usize];
        return Ok(ffi::CallReport {
            ok: true,
            reused: false,
            mod_size: m,
            ref_size: r,
            mod_stripped: m,
            ref_stripped: r,
            projected_objects: 0,
            read_objects: 0,
            micros: 0,
            message: String::new(),
            unknown: false,
        });
    }
    let globals = e.globals.get_or_insert_with(|| {
        state
            .globals()
            .iter()
            .filter_map(|g| {
                let o = *session.prog.site_objects.get(&g.site)?;
                let name = session.prog.objects[o as usize].label.strip_prefix("global:")?;
                Some((name.to_string(), g.object))
            })
            .collect()
    });
    // A dumped call: the whole projection is read, written before the analysis (so that a
    // call that fails can be replayed too), and the analysis reads it instead of KLEE's
    // state (each object is read from KLEE once).
    let full = if dump.is_empty() {
        None
    } else {
        let full = MemoryGraph::project(&KleeState { view: state, session, function: f, globals }, session.roots())?;
        std::fs::write(dump, serde_json::to_string_pretty(&crate::snapshot::record(&full, "final.bc", None, false))? + "\n")?;
        Some(full)
    };
    // The C++ view borrows the session for names: a view is made for each request.
    let t = std::time::Instant::now();
    let read_micros = &mut e.read_micros;
    let (g, abs, result, stats) = if session.on_demand {
        session.analyze_on_demand(&mut |sess, g, what| {
            let t = std::time::Instant::now();
            let r = match &full {
                Some(full) => crate::session::fetch(full, sess.roots(), g, what),
                None => crate::session::fetch(&KleeState { view: state, session: sess, function: f, globals }, sess.roots(), g, what),
            };
            *read_micros += t.elapsed().as_micros() as u64;
            r
        })?
    } else {
        let g = match full {
            Some(full) => full,
            None => MemoryGraph::project(&KleeState { view: state, session, function: f, globals }, session.roots())?,
        };
        *read_micros += t.elapsed().as_micros() as u64;
        let (abs, result, stats) = session.analyze_graph(&g, None, false)?;
        (g, abs, result, stats)
    };
    if !dump.is_empty() {
        // The sets KLEE saw, next to the snapshot: replaying it must give the same.
        let rep = ModRefReport {
            schema: "pspa.modref/1",
            snapshot: dump.to_string(),
            function: g.function.clone(),
            modset: CallResult::labels(&abs, &result.modset),
            refset: CallResult::labels(&abs, &result.refset),
            stats: stats.clone(),
        };
        let out = dump.strip_suffix(".json").unwrap_or(dump).to_string() + ".modref.json";
        std::fs::write(out, serde_json::to_string_pretty(&rep)? + "\n")?;
    }
    Ok(ffi::CallReport {
        ok: true,
        reused: stats.reused,
        mod_size: result.modset.len(),
        ref_size: result.refset.len(),
        mod_stripped: CallResult::stripped_len(&abs, &result.modset),
        ref_stripped: CallResult::stripped_len(&abs, &result.refset),
        projected_objects: stats.abstraction.projected_objects,
        read_objects: stats.abstraction.projected_objects - stats.abstraction.opaque_objects,
        micros: 0,
        message: String::new(),
        unknown: stats.abstraction.unknown > 0 && CallResult::touches_unknown(&abs, &result),
    })
}

/// A KLEE state seen through the C++ view, with sites and functions named as by the
/// front end.
struct KleeState<'a> {
    view: &'a ffi::StateView,
    session: &'a Session,
    function: FuncId,
    globals: &'a FxHashMap<String, StateObjId>,
}

impl KleeState<'_> {
    fn target(&self, t: &ffi::TargetFfi) -> Target {
        match t.kind {
            0 => Target::Object { id: t.object, offset: t.offset_known.then_some(t.offset) },
            1 => match self.session.prog.site_functions.get(&t.function) {
                Some(&f) => Target::Function(self.session.prog.functions[f as usize].name.clone()),
                None => Target::Null, // not a function of the module: code we cannot see
            },
            3 => Target::Unknown,
            _ => Target::Null,
        }
    }

    fn site_label(&self, site: usize) -> String {
        match self.session.prog.site_objects.get(&site) {
            Some(&o) => self.session.prog.objects[o as usize].label.clone(),
            // KLEE's own objects (argv, environment, errno, ...): a site of their own.
            None => "heap:klee:0".to_string(),
        }
    }
}

impl SymbolicState for KleeState<'_> {
    fn call(&self) -> (&str, Vec<Option<Vec<Target>>>) {
        let name = self.session.prog.functions[self.function as usize].name.as_str();
        let args = (0..self.view.num_args())
            .map(|i| {
                let mut out = Vec::new();
                self.view.arg(i, &mut out).then(|| out.iter().map(|t| self.target(t)).collect())
            })
            .collect();
        (name, args)
    }

    fn globals(&self) -> Vec<(String, StateObjId)> {
        // Sorted: the reference projection's order must not depend on a hash map's.
        let mut v: Vec<(String, StateObjId)> = self.globals.iter().map(|(n, &id)| (n.clone(), id)).collect();
        v.sort_unstable();
        v
    }

    fn global(&self, name: &str) -> Option<StateObjId> {
        self.globals.get(name).copied()
    }

    fn object(&self, id: StateObjId) -> Option<StateObject> {
        let mut o = ffi::ObjectFfi { id: 0, site: 0, size: 0, type_name: String::new() };
        if !self.view.object(id, &mut o) {
            return None;
        }
        Some(StateObject {
            id,
            site: self.site_label(o.site),
            size: o.size,
            ty: (!o.type_name.is_empty()).then(|| o.type_name.clone()),
        })
    }

    fn pointer_slots(&self, id: StateObjId) -> Vec<PointerSlot> {
        self.view
            .pointer_slots(id)
            .iter()
            .map(|s| PointerSlot { offset: s.offset, targets: s.targets.iter().map(|t| self.target(t)).collect() })
            .collect()
    }
}
