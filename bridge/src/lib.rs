//! The bridge to the KLEE plugin (cpp-shim/): the core's entry points, callable from C++.
//!
//! Everything here is panic-safe: a panic is caught and becomes a failed result (the
//! plugin then takes the conservative answer and warns once); it never unwinds into C++.
//! No `Result` crosses the bridge (it would throw, and KLEE is built without exceptions).

use pspa::facts::FuncId;
use pspa::frontend::{FrontOptions, Module};
use pspa::local::CallResult;
use pspa::memory_graph::MemoryGraph;
use pspa::query::{Answer, LiveObject, Node, Pointed, WholeProgramAnswers};
use pspa::session::{CallOptions, ModRefReport, OverCallBudget, Session, SessionOptions};
use pspa::state::{ObjType, PointerSlot, StateObjId, StateObject, SymbolicState, Target};
use rustc_hash::FxHashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::Arc;

#[cxx::bridge(namespace = "pspa")]
pub mod ffi {
    /// An object of the state. `site`: its `allocSite` (`llvm::Value*`); `ty`: its
    /// `llvm::Type*`, 0 when unknown, placed `ty_offset` bytes in (past an allocator's
    /// header; `ObjType::After`).
    struct ObjectFfi {
        id: u64,
        site: usize,
        size: u64,
        ty: usize,
        ty_offset: u64,
    }
    /// What reading a value of the state gave: the state view says when it could not
    /// read faithfully, and the call then fails before anything is solved or cached.
    enum Read {
        NoPointer,
        Pointer,
        Failed,
    }
    /// A live object of the state a client asks about: its `MemoryObject::id`, its
    /// `allocSite` (`llvm::Value*`, 0 if none), and whether it existed when the call was
    /// analysed.
    struct LiveObjectFfi {
        id: u64,
        site: usize,
        existed: bool,
    }
    /// The abstract node of a live object (`pspa::query::Node`).
    enum NodeKind {
        Unique,
        Static,
        Local,
        Unreached,
        Unknown,
    }
    /// A function's row of chopping's profile (`pspa::skips::FunctionProfile`, whose
    /// fields these are).
    struct ProfileRow {
        function: String,
        line: u32,
        calls: u64,
        result_used: u64,
        instructions: u64,
        forks: u64,
        path_instructions: u64,
        analysed: u64,
        mod_locations: u64,
        watched: u64,
        read: u64,
        read_after_mean: f64,
        unread: u64,
        analysis_s: f64,
        warm_analyses: u64,
        analysis_needed: u64,
        excluded: String,
        callers: String,
        read_at: String,
        read_inside: String,
    }
    /// A call site's verdict (`pspa::skips::Ranked`): `verdict` 0 skip, 1 candidate, 2 never.
    struct SkipVerdict {
        function: String,
        line: u32,
        /// Every call of the function, not this site alone.
        whole: bool,
        verdict: u8,
        gain: f64,
        reason: String,
    }
    /// What a pointer value may point to.
    enum TargetKind {
        /// Byte `offset` of `object` (any offset when !offset_known).
        Object,
        /// The function at `function` (`llvm::Function*`).
        Function,
        Null,
        /// May point anywhere: symbolic input in a pointer-typed field, or too many targets
        /// to list.
        Unknown,
    }
    struct TargetFfi {
        kind: TargetKind,
        object: u64,
        offset: u64,
        offset_known: bool,
        function: usize,
        /// `pointer_slots`: the byte offset of the word holding it (the targets of one
        /// object come flat, by increasing word; one vector per word was an allocation
        /// per pointer read). Unused by `arg`.
        slot: u64,
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
        /// Heap bytes of the call's answer handle.
        answer_bytes: usize,
        /// Solver work of the call's own solves (0 when reused): deterministic cost.
        work: u64,
        /// Rounds of the on-demand projection (each reads more of the state, then solves
        /// or reuses again; 0 when the call failed, was projected eagerly or in SPA mode,
        /// or was answered from a recent call's answer), and microseconds of the call's
        /// own solves (0 when it failed).
        rounds: usize,
        solve_micros: u64,
        /// The call failed because it went over its own work budget (`max_work` of
        /// `engine_analyze`), which the client chose: not a failure of the analysis.
        over_call_budget: bool,
        /// The past-sensitive analysis could not answer (`message` says why: the work
        /// budget, a pending skip without a post-state, a state it could not read) and
        /// the answer is the whole-program analysis' (`EngineOptions::fallback`): sound
        /// for every state, coarser. `ok` is true.
        whole_program: bool,
        /// Answered without the state: the function is writeless (`pspa::writeless`).
        /// `reused` is true; nothing was read.
        writeless: bool,
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
        /// Calls that did not look in the summary cache: their function's lookups almost
        /// never hit (summaries.rs `Yield`).
        low_yield_skips: u64,
        solver_runs: u64,
        /// Calls over the work budget (failures, or whole-program answers under the
        /// fallback).
        over_budget: u64,
        /// Of those, the first of their function over the trial budget.
        over_trial: u64,
        /// Solver runs made again with a body the slice lacked (`ReuseStats::body_rounds`).
        body_rounds: u64,
        /// Calls answered from an unchanged state (`ReuseStats::unchanged`).
        unchanged: u64,
        /// Calls of writeless functions answered without their state (of them, calls of
        /// functions that write statics); full analyses of such functions, and those that
        /// contradicted the claim (`ReuseStats::writeless*`; expected 0).
        writeless: u64,
        writeless_statics: u64,
        writeless_checked: u64,
        writeless_contradicted: u64,
        fetch_rounds: u64,
        objects_met: u64,
        objects_read: u64,
        /// Answer handles made, their heap bytes in total and the largest.
        answers: u64,
        answer_bytes: u64,
        answer_bytes_max: u64,
        /// Calls answered by the whole-program analysis (`CallReport::whole_program`),
        /// the functions whose answer was made for them, and the time of the
        /// whole-program analysis (0 when it never ran).
        whole_program_calls: u64,
        whole_program_functions: u64,
        whole_program_micros: u64,
        /// Whether the whole-program analysis ran. It never runs inside `engine_analyze`
        /// (SPA mode solves in `engine_new`, a past-sensitive engine at a client's first
        /// question to a fallback answer or for chopping's call graph): the plugin's
        /// timing of calls does not see it, and adds `whole_program_micros` at the end.
        whole_program_ran: bool,
    }

    /// The plugin's options that shape the analysis (`engine_new`): the session's
    /// (`pspa::session::SessionOptions`, where each is described) and the front end's.
    struct EngineOptions {
        /// Whole-program analysis once (SPA), else past-sensitive at each call.
        spa: bool,
        /// `SessionOptions::reuse` (`--pspa-no-reuse`).
        reuse: bool,
        /// `SessionOptions::all_globals`.
        all_globals: bool,
        /// Not `SessionOptions::on_demand`.
        eager: bool,
        /// `SessionOptions::max_work`; 0: no bound.
        max_work: u64,
        /// `SessionOptions::trial_work`; 0: none.
        trial_work: u64,
        /// `SessionOptions::points_to` (`answer_may_point_to`).
        points_to: bool,
        /// `FrontOptions::allocators` (`--pspa-allocator`).
        allocators: Vec<String>,
        /// `SessionOptions::follow_exits` (`--pspa-follow-exits`).
        follow_exits: bool,
        /// A call the past-sensitive analysis cannot answer gets its function's
        /// whole-program answer (computed once, at the first such call) instead of none
        /// (`--pspa-fallback`).
        fallback: bool,
        /// `SessionOptions::writeless` (`--pspa-writeless`).
        writeless: bool,
    }

    /// One call's own options (`pspa::session::CallOptions`).
    struct CallRequest {
        /// The call is skipped: its answer keeps its post-state for later calls of the
        /// path.
        keep_post: bool,
        /// A budget for this call tighter than the session's (0: the session's), for a
        /// call a client wants only if it is cheap.
        max_work: u64,
    }

    /// What `engine_wit` computed.
    #[derive(Default)]
    struct WitReport {
        ok: bool,
        colours: u64,
        heap_colours: u64,
        writes: u64,
        unknown_writes: u64,
        message: String,
    }

    extern "Rust" {
        type Engine;
        /// An engine over KLEE's module (`llvm::Module*`), as `options` say. Check
        /// `engine_error` before use.
        fn engine_new(module: usize, module_name: &str, options: &EngineOptions) -> Box<Engine>;
        fn engine_error(e: &Engine) -> String;
        /// Analyse the call of `function` (`llvm::Function*`) in `state`; when `dump` is not
        /// empty, also write the state as a `pspa.snapshot/1` file there.
        /// The handle answers the clients' queries; a failed call (`report.ok` false)
        /// gives a handle whose every answer is the conservative one.
        ///
        /// `pending`: the skipped calls still pending on the state's path, oldest first:
        /// the state lacks their writes, so their post-states join it (paper 6.2).
        /// `call`: what this call asks beyond the engine's options.
        fn engine_analyze(
            e: &mut Engine,
            state: &StateView,
            function: usize,
            dump: &str,
            pending: &PendingPosts,
            call: &CallRequest,
            report: &mut CallReport,
        ) -> Box<CallAnswer>;
        /// The skipped calls pending on a path (their answers' post-states).
        type PendingPosts;
        fn pending_new() -> Box<PendingPosts>;
        /// Add the answer of a pending skipped call, the oldest first. False when it has
        /// no post-state (its analysis failed, or was a whole-program answer): an analysis
        /// given this list cannot join it, and gets the fallback's answer.
        fn pending_add(p: &mut PendingPosts, a: &CallAnswer) -> bool;
        /// A pending skipped call whose analysis failed (no answer at all).
        fn pending_add_failed(p: &mut PendingPosts);
        fn pending_len(p: &PendingPosts) -> usize;
        fn engine_stats(e: &Engine) -> EngineStats;
        /// Count a call the plugin answered with its function's last answer (nothing it
        /// read changed since): a reuse.
        fn engine_count_unchanged(e: &mut Engine);
        /// Write KLEE's module as bitcode (what dumped snapshots refer to).
        fn engine_write_module(e: &Engine, path: &str) -> bool;

        /// An analysed call's answer (`pspa::query::Answer`): immutable; the plugin
        /// shares one among the states that fork from the call.
        type CallAnswer;
        fn answer_ok(a: &CallAnswer) -> bool;
        /// SPA mode: the whole-program answer for calls of `function` (`llvm::Function*`),
        /// without reading any state; a failed handle otherwise.
        fn engine_whole_program_answer(e: &Engine, function: usize) -> Box<CallAnswer>;
        fn answer_node(e: &Engine, a: &CallAnswer, o: &LiveObjectFfi) -> NodeKind;
        /// Whether the call may write (read) bytes [offset, offset + len) of `o`
        /// (anywhere in it when !offset_known). True when the call failed.
        fn answer_may_write(
            e: &Engine,
            a: &CallAnswer,
            o: &LiveObjectFfi,
            offset: u64,
            len: u64,
            offset_known: bool,
        ) -> bool;
        fn answer_may_read(
            e: &Engine,
            a: &CallAnswer,
            o: &LiveObjectFfi,
            offset: u64,
            len: u64,
            offset_known: bool,
        ) -> bool;
        /// Whether the call may free `o`. True when the call failed.
        fn answer_may_free(e: &Engine, a: &CallAnswer, o: &LiveObjectFfi) -> bool;
        /// Whether the pointer `value` (`llvm::Value*`), dereferenced by the call, may
        /// point into `o`: 0 no, 1 its set names `o`, 2 it has no set (resolve as KLEE
        /// would), 3 the answer cannot tell (`unknown`, or an object with no node): may.
        fn answer_may_point_to(e: &Engine, a: &CallAnswer, value: usize, o: &LiveObjectFfi) -> u8;
        fn answer_heap_bytes(a: &CallAnswer) -> usize;
        /// The size of the call's mod set (abstract locations); 0 when the call failed.
        fn answer_mod_size(e: &Engine, a: &CallAnswer) -> usize;
        /// Chopping's ranking of a profile (`pspa::skips::rank`, the CLI's `pspa skips`),
        /// of a run of `instructions` in `wall_s` seconds. Empty if it panicked.
        fn rank_skips(
            rows: &[ProfileRow],
            instructions: u64,
            wall_s: f64,
            top: usize,
        ) -> Vec<SkipVerdict>;
        /// Why a function skipped `skips` times, `recoveries` of them recovered, should run
        /// again (`pspa::skips::stop_reason`); empty: skipping it still pays.
        fn skip_stop_reason(
            row: &ProfileRow,
            instructions: u64,
            wall_s: f64,
            skips: u64,
            recoveries: u64,
        ) -> String;
        /// What one skipped call costs besides its analysis, in instructions
        /// (`pspa::skips::RankOptions::skip_cost`): a function whose calls cost less
        /// cannot pay back its skips.
        fn skip_cost() -> f64;
        /// How many units the ranking proposes by default (`RankOptions::top`).
        fn skip_default_top() -> usize;
        /// Skips a unit makes before `skip_stop_reason` judges it (`pspa::skips::MIN_SKIPS`).
        fn skip_min_skips() -> u64;
        /// The profile as `chop-profile.csv` (`pspa::skips::Profile::to_csv`).
        fn profile_csv(rows: &[ProfileRow], instructions: u64, wall_s: f64) -> String;
        /// The `--skip-functions=` value of a ranking's proposed sites (`pspa::skips::skip_line`).
        fn skip_line(verdicts: &[SkipVerdict]) -> String;
        /// Whether the call may run or call `function` (`llvm::Function*`): a skipped call
        /// that may reach `exit` or `abort`. A call that ends the process and that the
        /// answer does not follow (`engine_not_followed`) is called; what it runs is not
        /// seen. True when the call failed.
        fn answer_may_call_any(e: &Engine, a: &CallAnswer, functions: &[usize]) -> bool;
        /// Whether the analysis replaces the body of `function` (`llvm::Function*`) by a
        /// library model (KLEE's `memcpy`): the body's pointers have no set; its accesses
        /// go through the call's arguments.
        fn engine_body_modelled(e: &Engine, function: usize) -> bool;
        /// The arguments (indices) through which the body of `function`, which a model
        /// replaces, may store (`store`) or load (`pspa::models::body_access_args`). False
        /// when the model does not say: any pointer argument.
        fn engine_body_access_args(
            e: &Engine,
            function: usize,
            store: bool,
            out: &mut Vec<usize>,
        ) -> bool;
        /// Whether the engine's past-sensitive answers leave out what a call of
        /// `function` (`llvm::Function*`) runs: it ends the process (`exit`, a function
        /// that cannot return otherwise) and `--pspa-follow-exits` is off. Such code is
        /// not part of what an enclosing call does when it returns: clients do not hold
        /// accesses inside it to the enclosing calls' answers. False in SPA mode.
        fn engine_not_followed(e: &Engine, function: usize) -> bool;
        /// The functions (`llvm::Function*`) a call of `function` may call directly or
        /// through a pointer, per the whole-program analysis (computed once, on first use).
        /// False when there is no analysis (then nothing is known: assume anything).
        fn engine_callees(e: &Engine, function: usize, out: &mut Vec<usize>) -> bool;

        /// Write Integrity Testing colours (`pspa::wit`) at a call of `function` in `state`:
        /// from the state (PSPA), or whole-program (SPA engine). Writes the `pspa.wit/1`
        /// JSON to `json` and the CSV tables to `csv` (when not empty).
        type WitHandle;
        fn engine_wit(
            e: &mut Engine,
            state: &StateView,
            function: usize,
            pending: &PendingPosts,
            json: &str,
            csv: &str,
            report: &mut WitReport,
        ) -> Box<WitHandle>;
        /// The colours of the fields of `o` overlapped by bytes [offset, offset + len)
        /// (all its fields when !offset_known); empty when the object has no colour; [0]
        /// when the WIT call cannot reach it (PSPA).
        fn wit_object(
            e: &Engine,
            w: &WitHandle,
            o: &LiveObjectFfi,
            offset: u64,
            len: u64,
            offset_known: bool,
            out: &mut Vec<u32>,
        );
        /// The colour of the write made by instruction `inst` (`llvm::Instruction*`); 0
        /// when it is not a coloured write.
        fn wit_write(w: &WitHandle, inst: usize) -> u32;
    }

    unsafe extern "C++" {
        include!("pspa/state_view.h");
        type StateView;
        fn num_args(self: &StateView) -> usize;
        fn arg(self: &StateView, i: usize, out: &mut Vec<TargetFfi>) -> Read;
        fn globals(self: &StateView) -> Vec<GlobalFfi>;
        fn object(self: &StateView, id: u64, out: &mut ObjectFfi) -> bool;
        /// False when the object's contents could not be read faithfully.
        fn pointer_slots(self: &StateView, id: u64) -> bool;
        fn slots_read(self: &StateView) -> &[TargetFfi];
    }
    // The plugin builds the profile's rows as a Vec (cxx instantiates it only when asked).
    impl Vec<ProfileRow> {}
}

pub struct Engine {
    session: Option<Session>,
    error: String,
    spa: bool,
    /// `EngineOptions::fallback`.
    fallback: bool,
    /// The whole-program analysis' answers and call graph, made once: at start in SPA
    /// mode, on first use otherwise (a call that falls back to them, chopping asking which
    /// functions a call reaches). None inside: no session, or the analysis panicked.
    whole: std::cell::OnceCell<Option<WholeProgramAnswers>>,
    whole_micros: std::cell::Cell<u64>,
    whole_program_calls: u64,
    /// Each function's `llvm::Function*`, the inverse of `Program::site_functions`.
    function_addresses: std::cell::OnceCell<FxHashMap<FuncId, usize>>,
    failures: u64,
    spa_calls: u64,
    /// Global name -> KLEE object id, and each function's name. Read once, at the first
    /// call (`StateNames`).
    names: Option<StateNames>,
    read_micros: u64,
    answers: u64,
    answer_bytes: u64,
    answer_bytes_max: u64,
}

/// An analysed call's answer.
pub struct CallAnswer(Handle);

enum Handle {
    /// The call failed: every query is answered conservatively.
    Failed,
    Ready(Arc<Answer>),
    /// The whole-program fallback's answer for calls of this function, made when a client
    /// first asks it something: the whole-program analysis runs then (once per run), so a
    /// run whose clients never ask (no client; resolution, to which such answers have no
    /// points-to sets) never pays for it (SQLite: 11 s and about 400 MB of its peak).
    /// Made only past-sensitively: an SPA engine's answers are made at once.
    WholeProgram(FuncId),
}

impl CallAnswer {
    fn failed() -> CallAnswer {
        CallAnswer(Handle::Failed)
    }

    fn of(a: Option<Arc<Answer>>) -> CallAnswer {
        CallAnswer(a.map_or(Handle::Failed, Handle::Ready))
    }

    /// The answer, a fallback's made now if no query asked it before; None when the call
    /// failed (or the whole-program analysis did).
    fn get<'a>(&'a self, e: &'a Engine) -> Option<&'a Arc<Answer>> {
        match &self.0 {
            Handle::Failed => None,
            Handle::Ready(a) => Some(a),
            Handle::WholeProgram(f) => e.whole()?.answer_ref(*f),
        }
    }

    /// The answer if it is made, without making a fallback's.
    fn ready(&self) -> Option<&Arc<Answer>> {
        match &self.0 {
            Handle::Ready(a) => Some(a),
            _ => None,
        }
    }
}

/// The skipped calls pending on a path, given oldest first: the youngest's answer (its
/// post-state covers the older ones', see `posts`) and how many there are; `missing` when
/// one has no post-state.
#[derive(Default)]
pub struct PendingPosts {
    youngest: Option<Arc<Answer>>,
    count: usize,
    missing: bool,
}

impl PendingPosts {
    /// The post-state to merge, or an error when one is missing. The youngest pending
    /// call's covers the older ones' (`Answer::join_older_post`): every call pending now
    /// but the youngest was pending when the youngest was skipped, so its analysis had
    /// them (and those it had, recursively). Calls recovered since stay in it: extra
    /// edges, which the state already has.
    fn posts(&self) -> anyhow::Result<Vec<&pspa::abstraction::PostState>> {
        if self.missing {
            anyhow::bail!(
                "a skipped call pending on this path has no post-state (its analysis failed): \
                 its writes are unknown"
            );
        }
        Ok(self
            .youngest
            .as_ref()
            .map(|a| {
                a.post()
                    .expect("pending_add keeps answers with a post-state")
            })
            .into_iter()
            .collect())
    }
}

fn pending_new() -> Box<PendingPosts> {
    Box::default()
}

fn pending_add(p: &mut PendingPosts, a: &CallAnswer) -> bool {
    // A whole-program answer has no post-state.
    match a.ready() {
        Some(ans) if ans.post().is_some() => {
            p.youngest = Some(ans.clone());
            p.count += 1;
            true
        }
        _ => {
            p.missing = true;
            p.count += 1;
            false
        }
    }
}

fn pending_add_failed(p: &mut PendingPosts) {
    p.missing = true;
    p.count += 1;
}

fn pending_len(p: &PendingPosts) -> usize {
    p.count
}

/// A caught panic's message, for the plugin's one warning.
fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

fn engine_new(module: usize, module_name: &str, o: &ffi::EngineOptions) -> Box<Engine> {
    // Panics are caught at every entry point and reported once by the plugin as a warning;
    // the default hook would print each one, with a backtrace, into KLEE's output.
    std::panic::set_hook(Box::new(|info| log::debug!("pspa: {info}")));
    // RUST_LOG as for the CLI (`pspa::session=debug`: each miss; `pspa_klee=debug`: each
    // failure's reason), onto KLEE's stderr; off unless asked.
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("off"))
        .try_init();
    let r = catch_unwind(AssertUnwindSafe(|| -> anyhow::Result<Engine> {
        // SAFETY: the plugin passes KLEE's live module, which outlives the engine.
        let m = unsafe {
            Module::borrowed(
                module as llvm_sys::prelude::LLVMModuleRef,
                PathBuf::from(module_name),
            )
        };
        let session = Session::from_module(
            m,
            &FrontOptions {
                allocators: o.allocators.clone(),
                ..Default::default()
            },
            session_options(o),
        )?;
        let mut e = Engine::failed(String::new(), Some(session), o.spa);
        e.fallback = o.fallback;
        if o.spa {
            e.whole();
        }
        Ok(e)
    }));
    Box::new(match r {
        Ok(Ok(e)) => e,
        Ok(Err(e)) => Engine::failed(format!("{:#}", e), None, false),
        Err(_) => Engine::failed(
            "internal error (panic) while reading the module".into(),
            None,
            false,
        ),
    })
}

/// The session's options, from the plugin's.
fn session_options(o: &ffi::EngineOptions) -> SessionOptions {
    SessionOptions {
        reuse: o.reuse,
        all_globals: o.all_globals,
        on_demand: !o.eager,
        // 0: no bound.
        max_work: (o.max_work > 0).then_some(o.max_work),
        trial_work: (o.trial_work > 0).then_some(o.trial_work),
        points_to: o.points_to,
        follow_exits: o.follow_exits,
        writeless: o.writeless,
        ..Default::default()
    }
}

impl Engine {
    /// The whole-program analysis' answers, made at the first call (None without a
    /// session, or when it panicked). Only the sets are kept, as bitmaps, and a function's
    /// answer is made when asked for (`WholeProgramAnswers`): every function's answer at
    /// once held about 1 GB on SQLite; the bitmaps are 26 MB.
    fn whole(&self) -> Option<&WholeProgramAnswers> {
        self.whole
            .get_or_init(|| {
                let session = self.session.as_ref()?;
                let t = std::time::Instant::now();
                // Points-to sets for SPA mode's clients only: a past-sensitive run's
                // fallback answers have none (resolution resolves those calls as KLEE
                // does), which spares chopping runs with resolution the whole program's
                // sets, made at the start for the call graph.
                let points_to = self.spa && session.options().points_to;
                let w = catch_unwind(AssertUnwindSafe(|| {
                    let a = pspa::analysis::analyze(&session.prog);
                    WholeProgramAnswers::new(&a, points_to)
                }));
                self.whole_micros.set(t.elapsed().as_micros() as u64);
                w.ok()
            })
            .as_ref()
    }

    /// The whole-program answer for calls of `f`.
    fn whole_answer(&self, f: FuncId) -> Option<Arc<Answer>> {
        self.whole()?.answer(f)
    }

    /// The whole program's call graph (`Solver::callees`).
    fn whole_program_callees(&self) -> Option<&[Vec<FuncId>]> {
        self.whole().map(|w| w.callees.as_slice())
    }

    fn failed(error: String, session: Option<Session>, spa: bool) -> Engine {
        Engine {
            session,
            error,
            spa,
            fallback: false,
            whole: Default::default(),
            whole_micros: Default::default(),
            whole_program_calls: 0,
            function_addresses: Default::default(),
            failures: 0,
            spa_calls: 0,
            names: None,
            read_micros: 0,
            answers: 0,
            answer_bytes: 0,
            answer_bytes_max: 0,
        }
    }
}

fn engine_error(e: &Engine) -> String {
    e.error.clone()
}

fn engine_write_module(e: &Engine, path: &str) -> bool {
    catch_unwind(AssertUnwindSafe(|| {
        e.session
            .as_ref()
            .is_some_and(|s| s.module().write_bitcode(std::path::Path::new(path)).is_ok())
    }))
    .unwrap_or(false)
}

fn engine_count_unchanged(e: &mut Engine) {
    // Counting cannot panic; guarded all the same (nothing may unwind into C++).
    let _ = catch_unwind(AssertUnwindSafe(|| {
        if let Some(s) = e.session.as_mut() {
            s.count_unchanged();
        }
    }));
}

fn engine_stats(e: &Engine) -> ffi::EngineStats {
    let r = catch_unwind(AssertUnwindSafe(|| {
        e.session
            .as_ref()
            .map(|s| s.reuse_stats())
            .unwrap_or_default()
    }))
    .unwrap_or_default();
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
        low_yield_skips: r.low_yield_skips,
        solver_runs: r.solver_runs,
        over_budget: r.over_budget,
        over_trial: r.over_trial,
        body_rounds: r.body_rounds,
        unchanged: r.unchanged,
        writeless: r.writeless,
        writeless_statics: r.writeless_statics,
        writeless_checked: r.writeless_checked,
        writeless_contradicted: r.writeless_contradicted,
        fetch_rounds: r.fetch_rounds,
        objects_met: r.objects_met,
        objects_read: r.objects_read,
        answers: e.answers,
        answer_bytes: e.answer_bytes,
        answer_bytes_max: e.answer_bytes_max,
        whole_program_calls: e.whole_program_calls,
        whole_program_functions: e
            .whole
            .get()
            .and_then(Option::as_ref)
            .map_or(0, |w| w.made() as u64),
        whole_program_micros: e.whole_micros.get(),
        whole_program_ran: e.whole.get().is_some(),
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
        answer_bytes: 0,
        work: 0,
        rounds: 0,
        solve_micros: 0,
        over_call_budget: false,
        whole_program: false,
        writeless: false,
    }
}

fn engine_analyze(
    e: &mut Engine,
    state: &ffi::StateView,
    function: usize,
    dump: &str,
    pending: &PendingPosts,
    call: &ffi::CallRequest,
    report: &mut ffi::CallReport,
) -> Box<CallAnswer> {
    let t = std::time::Instant::now();
    let max_work = (call.max_work > 0).then_some(call.max_work);
    let keep_post = call.keep_post;
    let r = catch_unwind(AssertUnwindSafe(|| {
        analyze(e, state, function, dump, pending, keep_post, max_work)
    }));
    let (mut rep, answer) = match r {
        Ok(Ok((rep, answer))) => (rep, CallAnswer::of(Some(answer))),
        Ok(Err(err)) => {
            log::debug!("a call of function {function} failed: {err:#}");
            let mut rep = failed_report(format!("{:#}", err));
            rep.over_call_budget = err.downcast_ref::<OverCallBudget>().is_some();
            // A client's own budget is the client's choice (it gives the call up); any
            // other failure gets the whole-program answer, sound for every state: what
            // the past-sensitive analysis would answer is a subset of it. Not after a
            // panic: that is a bug to see, and the conservative answer stays.
            // The whole-program answer is made when a client first asks (`Handle`); not
            // when the whole-program analysis failed already (nor in SPA mode, whose
            // answers are made at once: a failure there is the analysis').
            let whole = (e.fallback
                && !rep.over_call_budget
                && !e.spa
                && !matches!(e.whole.get(), Some(None)))
            .then(|| {
                let s = e.session.as_ref()?;
                s.prog.site_functions.get(&function).copied()
            })
            .flatten();
            match whole {
                Some(f) => {
                    e.whole_program_calls += 1;
                    rep.ok = true;
                    rep.whole_program = true;
                    // The sizes of the function's whole-program sets if the analysis has
                    // run (a client asked, chopping's call graph), else 0: not run for them.
                    let made = catch_unwind(AssertUnwindSafe(|| {
                        let a = e.whole.get()?.as_ref()?.answer_ref(f)?;
                        Some((a.modset().len(), a.refset().len(), a.unknown()))
                    }));
                    if let Ok(Some((m, r, unknown))) = made {
                        rep.mod_size = m;
                        rep.ref_size = r;
                        rep.mod_stripped = m;
                        rep.ref_stripped = r;
                        rep.unknown = unknown;
                    }
                    (rep, CallAnswer(Handle::WholeProgram(f)))
                }
                None => (rep, CallAnswer::failed()),
            }
        }
        Err(p) => (
            failed_report(format!(
                "internal error (panic) in the analysis: {}",
                panic_message(&*p)
            )),
            CallAnswer::failed(),
        ),
    };
    if !rep.ok && !rep.over_call_budget {
        e.failures += 1;
    }
    // A whole-program answer is not made here, and is shared by every call of its
    // function: not this call's (nor counted among the answers made, whose bytes the done
    // line averages).
    if let Some(a) = answer.ready() {
        rep.unknown = a.unknown();
        rep.answer_bytes = a.heap_bytes();
        e.answers += 1;
        e.answer_bytes += rep.answer_bytes as u64;
        e.answer_bytes_max = e.answer_bytes_max.max(rep.answer_bytes as u64);
    }
    rep.micros = t.elapsed().as_micros() as u64;
    *report = rep;
    Box::new(answer)
}

/// What KleeState names, the same for every state of a run: read at the first call.
struct StateNames {
    /// Global name -> KLEE object id. KLEE allocates every global once, before `main`, and
    /// every state shares those objects.
    globals: FxHashMap<String, StateObjId>,
    /// Each function's name, shared by every pointer to it that is read (`Target::Function`):
    /// a string per function pointer read was an allocation each, thousands a SQLite call.
    functions: Vec<Arc<str>>,
}

fn state_names<'a>(
    cache: &'a mut Option<StateNames>,
    state: &ffi::StateView,
    session: &Session,
) -> &'a StateNames {
    cache.get_or_insert_with(|| StateNames {
        globals: state
            .globals()
            .iter()
            .filter_map(|g| {
                let o = *session.prog.site_objects.get(&g.site)?;
                let name = pspa::site::global_name(&session.prog.objects[o as usize].label)?;
                Some((name.to_string(), g.object))
            })
            .collect(),
        functions: session
            .prog
            .functions
            .iter()
            .map(|f| Arc::from(f.name.as_str()))
            .collect(),
    })
}

fn analyze(
    e: &mut Engine,
    state: &ffi::StateView,
    function: usize,
    dump: &str,
    pending: &PendingPosts,
    keep_post: bool,
    max_work: Option<u64>,
) -> anyhow::Result<(ffi::CallReport, Arc<Answer>)> {
    let Some(session) = e.session.as_mut() else {
        anyhow::bail!("no analysis: {}", e.error)
    };
    let Some(&f) = session.prog.site_functions.get(&function) else {
        anyhow::bail!("unknown function")
    };
    if e.spa {
        e.spa_calls += 1;
        let Some(a) = e.whole_answer(f) else {
            anyhow::bail!("the whole-program analysis failed")
        };
        let (m, r) = (a.modset().len(), a.refset().len());
        let rep = ffi::CallReport {
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
            answer_bytes: 0,
            work: 0,
            rounds: 0,
            solve_micros: 0,
            over_call_budget: false,
            whole_program: false,
            writeless: false,
        };
        return Ok((rep, a));
    }
    // A writeless function (or one that writes only statics, with no pointer): nothing of
    // the state is read. Skipped, its post-state adds nothing to the older pending calls'
    // (joined as for any answer; none known when one of them has no post-state: then it
    // is analysed, and fails, as any call would).
    let call = CallOptions {
        keep_post,
        max_work,
        ..Default::default()
    };
    // Asked once: the analysis below joins the same post-states.
    let posts = pending.posts();
    let older = if keep_post {
        posts.as_ref().ok()
    } else {
        Some(&Vec::new())
    };
    if let Some(older) = older {
        if let Some(w) = session.writeless_call(f, call) {
            let mut answer = Answer::writeless(w.calls, &w.statics, keep_post);
            if let Some(older) = older.first() {
                answer.join_older_post(older);
            }
            let rep = ffi::CallReport {
                ok: true,
                reused: true,
                // Each static a whole-object location, as the answer's mod-set has it.
                mod_size: w.statics.len(),
                mod_stripped: w.statics.len(),
                writeless: true,
                ..failed_report(String::new())
            };
            return Ok((rep, Arc::new(answer)));
        }
    }
    // Bound to fail: before anything is read (SQLite's 18,531 such calls in 60 s read their
    // roots first, the globals their callees name: 283 us a call).
    session.fail_if_bound_to(f)?;
    let globals = state_names(&mut e.names, state, session);
    // A dumped call: the whole projection is read, written before the analysis (so that a
    // call that fails can be replayed too), and the analysis reads it instead of KLEE's
    // state (each object is read from KLEE once). A state that could not be read
    // faithfully is neither dumped nor solved.
    let full = if dump.is_empty() {
        None
    } else {
        let st = KleeState::new(state, session, f, globals);
        let full = MemoryGraph::project(&st, session.roots())?;
        std::fs::write(
            dump,
            serde_json::to_string_pretty(&pspa::snapshot::record(&full, "final.bc", None, false))?
                + "\n",
        )?;
        Some(full)
    };
    let t = std::time::Instant::now();
    let read_micros = &mut e.read_micros;
    let posts = posts?;
    // Eager mode (the reference) reads everything first; with pending skips or a skipped
    // call, through the same loop, which meets what their post-states reach.
    let joined = !posts.is_empty() || keep_post;
    let (g, abs, result, stats) = if session.options().on_demand || joined {
        let read = &mut |sess: &Session, g: &mut MemoryGraph, what: pspa::session::Fetch| {
            let t = std::time::Instant::now();
            let r = match &full {
                Some(full) => pspa::session::fetch(full, sess.roots(), g, what),
                None => {
                    // The C++ view borrows the session for names: a view per request.
                    let st = KleeState::new(state, sess, f, globals);
                    pspa::session::fetch(&st, sess.roots(), g, what)
                }
            };
            *read_micros += t.elapsed().as_micros() as u64;
            r
        };
        let call = CallOptions {
            keep_post,
            max_work,
            ..Default::default()
        };
        session.analyze_on_demand_after(read, &posts, call)?
    } else {
        let g = match full {
            Some(full) => full,
            None => {
                let st = KleeState::new(state, session, f, globals);
                MemoryGraph::project(&st, session.roots())?
            }
        };
        *read_micros += t.elapsed().as_micros() as u64;
        let call = CallOptions {
            max_work,
            ..Default::default()
        };
        let (abs, result, stats) = session.analyze_graph_with(&g, &[], call)?;
        (g, abs, result, stats)
    };
    if !dump.is_empty() {
        // The sets KLEE saw, next to the snapshot: replaying it must give the same.
        let rep = ModRefReport {
            snapshot: dump.to_string(),
            ..session.modref_report(&g.function, &abs, &result, stats.clone())
        };
        let out = dump.strip_suffix(".json").unwrap_or(dump).to_string() + ".modref.json";
        std::fs::write(out, serde_json::to_string_pretty(&rep)? + "\n")?;
    }
    let rep = ffi::CallReport {
        ok: true,
        reused: stats.reused,
        mod_size: result.modset.len(),
        ref_size: result.refset.len(),
        mod_stripped: CallResult::stripped_len(&session.prog, &abs, &result.modset),
        ref_stripped: CallResult::stripped_len(&session.prog, &abs, &result.refset),
        projected_objects: stats.abstraction.projected_objects,
        read_objects: stats.abstraction.projected_objects - stats.abstraction.opaque_objects,
        micros: 0,
        message: String::new(),
        unknown: false,
        answer_bytes: 0,
        work: stats.work,
        rounds: stats.fetch_rounds,
        solve_micros: (stats.solve_ms * 1e3) as u64,
        over_call_budget: false,
        whole_program: false,
        writeless: false,
    };
    let mut answer = Answer::new(&abs, result);
    if keep_post {
        if let Some(older) = posts.first() {
            answer.join_older_post(older);
        }
    }
    Ok((
        ffi::CallReport {
            unknown: answer.unknown(),
            ..rep
        },
        Arc::new(answer),
    ))
}

// ---- queries -------------------------------------------------------------------------

fn live(e: &Engine, o: &ffi::LiveObjectFfi) -> Option<LiveObject> {
    let prog = &e.session.as_ref()?.prog;
    Some(LiveObject {
        id: o.id,
        site: prog.site_objects.get(&o.site).copied(),
        existed: o.existed,
    })
}

/// Run a query; a failed call, a missing session or a panic give `conservative`.
fn query<T>(
    e: &Engine,
    a: &CallAnswer,
    o: &ffi::LiveObjectFfi,
    conservative: T,
    q: impl FnOnce(&Answer, &pspa::facts::Program, &LiveObject) -> T,
) -> T {
    // Inside the catch: `get` may make a fallback's answer.
    let r = catch_unwind(AssertUnwindSafe(|| {
        let (Some(answer), Some(s), Some(lo)) = (a.get(e), e.session.as_ref(), live(e, o)) else {
            return None;
        };
        Some(q(answer, &s.prog, &lo))
    }));
    r.ok().flatten().unwrap_or(conservative)
}

fn answer_ok(a: &CallAnswer) -> bool {
    !matches!(a.0, Handle::Failed)
}

fn engine_whole_program_answer(e: &Engine, function: usize) -> Box<CallAnswer> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        e.session
            .as_ref()
            .and_then(|s| s.prog.site_functions.get(&function))
            .and_then(|&f| e.whole_answer(f))
    }));
    Box::new(CallAnswer::of(r.ok().flatten()))
}

fn answer_node(e: &Engine, a: &CallAnswer, o: &ffi::LiveObjectFfi) -> ffi::NodeKind {
    query(e, a, o, ffi::NodeKind::Unknown, |ans, prog, lo| {
        match ans.node_of(prog, lo) {
            Node::Unique(_) => ffi::NodeKind::Unique,
            Node::Static(_) => ffi::NodeKind::Static,
            Node::Local => ffi::NodeKind::Local,
            Node::Unreached => ffi::NodeKind::Unreached,
            Node::Unknown => ffi::NodeKind::Unknown,
        }
    })
}

fn answer_may_write(
    e: &Engine,
    a: &CallAnswer,
    o: &ffi::LiveObjectFfi,
    offset: u64,
    len: u64,
    offset_known: bool,
) -> bool {
    query(e, a, o, true, |ans, prog, lo| {
        ans.may_write(prog, lo, offset_known.then_some((offset, len)))
    })
}

fn answer_may_read(
    e: &Engine,
    a: &CallAnswer,
    o: &ffi::LiveObjectFfi,
    offset: u64,
    len: u64,
    offset_known: bool,
) -> bool {
    query(e, a, o, true, |ans, prog, lo| {
        ans.may_read(prog, lo, offset_known.then_some((offset, len)))
    })
}

fn answer_may_free(e: &Engine, a: &CallAnswer, o: &ffi::LiveObjectFfi) -> bool {
    query(e, a, o, true, |ans, prog, lo| ans.may_free(prog, lo))
}

fn answer_may_point_to(e: &Engine, a: &CallAnswer, value: usize, o: &ffi::LiveObjectFfi) -> u8 {
    // A past-sensitive engine's whole-program answers carry no points-to sets
    // (`Engine::whole`): no set, without making the answer.
    if matches!(a.0, Handle::WholeProgram(_)) {
        return 2;
    }
    query(e, a, o, 2, |ans, prog, lo| {
        let Some(&v) = prog.value_vars.get(&value) else {
            return 2;
        };
        match ans.pointed(prog, v, lo) {
            Some(Pointed::No) => 0,
            Some(Pointed::InSet) => 1,
            None => 2,
            Some(Pointed::Unknown) => 3,
        }
    })
}

fn engine_body_modelled(e: &Engine, function: usize) -> bool {
    let Some(s) = e.session.as_ref() else {
        return false;
    };
    s.prog.site_functions.get(&function).is_some_and(|&f| {
        let f = &s.prog.functions[f as usize];
        f.defined && f.model.is_some()
    })
}

fn engine_body_access_args(e: &Engine, function: usize, store: bool, out: &mut Vec<usize>) -> bool {
    let Some(s) = e.session.as_ref() else {
        return false;
    };
    let Some(model) = s
        .prog
        .site_functions
        .get(&function)
        .and_then(|&f| s.prog.functions[f as usize].model.as_ref())
    else {
        return false;
    };
    match pspa::models::body_access_args(model, store) {
        Some(args) => {
            *out = args;
            true
        }
        None => false,
    }
}

fn engine_not_followed(e: &Engine, function: usize) -> bool {
    let Some(s) = e.session.as_ref() else {
        return false;
    };
    // Whole-program answers follow every call.
    if e.spa || s.options().follow_exits {
        return false;
    }
    s.prog
        .site_functions
        .get(&function)
        .is_some_and(|&f| s.prog.functions[f as usize].ends_process)
}

fn answer_may_call_any(e: &Engine, a: &CallAnswer, functions: &[usize]) -> bool {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let answer = a.get(e)?;
        let s = e.session.as_ref()?;
        let ids: Vec<FuncId> = functions
            .iter()
            .filter_map(|f| s.prog.site_functions.get(f).copied())
            .collect();
        if !answer.is_whole_program() {
            return Some(answer.may_call_any(&ids, &[]));
        }
        Some(answer.may_call_any(&ids, e.whole_program_callees()?))
    }));
    r.ok().flatten().unwrap_or(true)
}

fn engine_callees(e: &Engine, function: usize, out: &mut Vec<usize>) -> bool {
    let r = catch_unwind(AssertUnwindSafe(|| {
        let s = e.session.as_ref()?;
        let &f = s.prog.site_functions.get(&function)?;
        let callees = e.whole_program_callees()?;
        let address = e.function_addresses.get_or_init(|| {
            s.prog
                .site_functions
                .iter()
                .map(|(&a, &g)| (g, a))
                .collect()
        });
        Some(
            callees
                .get(f as usize)?
                .iter()
                .filter_map(|g| address.get(g).copied())
                .collect::<Vec<_>>(),
        )
    }));
    match r {
        Ok(Some(v)) => {
            out.extend(v);
            true
        }
        _ => false,
    }
}

/// WIT colours and the answer whose `node_of` maps live objects to their locations.
pub struct WitHandle(Option<(Answer, pspa::wit::WitColours)>);

fn engine_wit(
    e: &mut Engine,
    state: &ffi::StateView,
    function: usize,
    pending: &PendingPosts,
    json: &str,
    csv: &str,
    report: &mut ffi::WitReport,
) -> Box<WitHandle> {
    let r = catch_unwind(AssertUnwindSafe(|| {
        wit(e, state, function, pending, json, csv)
    }));
    let (rep, h) = match r {
        Ok(Ok((rep, h))) => (rep, Some(h)),
        Ok(Err(err)) => (
            ffi::WitReport {
                message: format!("{:#}", err),
                ..Default::default()
            },
            None,
        ),
        Err(p) => (
            ffi::WitReport {
                message: format!("internal error (panic): {}", panic_message(&*p)),
                ..Default::default()
            },
            None,
        ),
    };
    *report = rep;
    Box::new(WitHandle(h))
}

fn wit(
    e: &mut Engine,
    state: &ffi::StateView,
    function: usize,
    pending: &PendingPosts,
    json: &str,
    csv: &str,
) -> anyhow::Result<(ffi::WitReport, (Answer, pspa::wit::WitColours))> {
    let whole_of = |e: &Engine| {
        let s = e.session.as_ref();
        s.and_then(|s| s.prog.site_functions.get(&function).copied())
            .and_then(|f| e.whole_answer(f))
    };
    let spa = e.spa;
    let spa_answer = if spa {
        let s = e.session.as_ref();
        match s.and_then(|s| s.prog.site_functions.get(&function).copied()) {
            Some(f) => e.whole_answer(f),
            None => None,
        }
    } else {
        None
    };
    let Some(session) = e.session.as_mut() else {
        anyhow::bail!("no analysis: {}", e.error)
    };
    let Some(&f) = session.prog.site_functions.get(&function) else {
        anyhow::bail!("unknown function")
    };
    let mut message = String::new();
    let (answer, colours) = if spa {
        let c = pspa::wit::whole_program(&session.prog);
        let Some(a) = spa_answer else {
            anyhow::bail!("the whole-program analysis failed")
        };
        ((*a).clone(), c)
    } else {
        let globals = state_names(&mut e.names, state, session);
        let posts = pending.posts();
        let past = posts.and_then(|posts| {
            session.wit_at(
                &mut |sess, g, what| {
                    let st = KleeState::new(state, sess, f, globals);
                    pspa::session::fetch(&st, sess.roots(), g, what)
                },
                &posts,
            )
        });
        match past {
            Ok(r) => r,
            // As for an analysed call (`engine_analyze`): the whole program's colours,
            // which cover every state, when the past-sensitive ones cannot be computed.
            Err(err) if e.fallback => {
                let c = pspa::wit::whole_program(&e.session.as_ref().expect("checked above").prog);
                let Some(a) = whole_of(e) else {
                    return Err(err.context("and the whole-program analysis failed"));
                };
                message = format!("whole-program colours: {err:#}");
                ((*a).clone(), c)
            }
            Err(err) => return Err(err),
        }
    };
    let t = &colours.tables;
    if !json.is_empty() {
        std::fs::write(json, t.json())?;
    }
    if !csv.is_empty() {
        std::fs::write(csv, t.csv())?;
    }
    let rep = ffi::WitReport {
        ok: true,
        colours: t.colours as u64,
        heap_colours: t.heap_colours as u64,
        writes: t.stores.len() as u64,
        unknown_writes: t.unknown_writes as u64,
        message,
    };
    Ok((rep, (answer, colours)))
}

fn wit_object(
    e: &Engine,
    w: &WitHandle,
    o: &ffi::LiveObjectFfi,
    offset: u64,
    len: u64,
    offset_known: bool,
    out: &mut Vec<u32>,
) {
    let (Some((answer, colours)), Some(s), Some(lo)) =
        (w.0.as_ref(), e.session.as_ref(), live(e, o))
    else {
        return;
    };
    let r = catch_unwind(AssertUnwindSafe(|| {
        let prog = &s.prog;
        let (obj, layout) = match answer.node_of(prog, &lo) {
            Node::Unique(i) => (
                pspa::local::ResLoc::Abs {
                    obj: i,
                    field: None,
                },
                answer.layout(i),
            ),
            Node::Static(st) => (
                pspa::local::ResLoc::Static {
                    obj: st,
                    field: None,
                },
                prog.objects[st as usize].layout,
            ),
            // A local of a frame begun after the WIT point: its alloca site's colour.
            Node::Local => match lo.site {
                Some(st) => (
                    pspa::local::ResLoc::Static {
                        obj: st,
                        field: None,
                    },
                    prog.objects[st as usize].layout,
                ),
                None => return Vec::new(),
            },
            // An object of the state the WIT call cannot reach: no write of the call may
            // touch it (WIT's colour 0, which no write has).
            Node::Unreached => return vec![0],
            _ => return Vec::new(),
        };
        let Some(all) = colours.object(&obj, layout.map(|l| prog.layouts[l as usize].abs_size()))
        else {
            return Vec::new();
        };
        match (layout, offset_known) {
            (Some(l), true) if all.len() > 1 => prog.layouts[l as usize]
                .fields_in(offset as i64, len.max(1))
                .into_iter()
                .filter_map(|f| all.get(f as usize).copied())
                .collect(),
            _ => all,
        }
    }));
    if let Ok(v) = r {
        out.extend(v);
    }
}

fn wit_write(w: &WitHandle, inst: usize) -> u32 {
    w.0.as_ref().and_then(|(_, c)| c.write(inst)).unwrap_or(0)
}

fn answer_heap_bytes(a: &CallAnswer) -> usize {
    a.ready().map_or(0, |x| x.heap_bytes())
}

// ---- the state --------------------------------------------------------------------------

/// A KLEE state seen through the C++ view, with sites and functions named as by the
/// front end. A value the view could not read faithfully (`Read::Failed`, false from
/// `pointer_slots`) is an error of the read.
struct KleeState<'a> {
    view: &'a ffi::StateView,
    session: &'a Session,
    function: FuncId,
    globals: &'a StateNames,
}

impl<'a> KleeState<'a> {
    fn new(
        view: &'a ffi::StateView,
        session: &'a Session,
        function: FuncId,
        globals: &'a StateNames,
    ) -> KleeState<'a> {
        KleeState {
            view,
            session,
            function,
            globals,
        }
    }

    fn target(&self, t: &ffi::TargetFfi) -> Target {
        match t.kind {
            ffi::TargetKind::Object => Target::Object {
                id: t.object,
                offset: t.offset_known.then_some(t.offset),
            },
            ffi::TargetKind::Function => match self.session.prog.site_functions.get(&t.function) {
                Some(&f) => Target::Function(self.globals.functions[f as usize].clone()),
                None => Target::Null, // not a function of the module: code we cannot see
            },
            ffi::TargetKind::Unknown => Target::Unknown,
            _ => Target::Null,
        }
    }

    fn site_label(&self, site: usize) -> std::sync::Arc<str> {
        match self.session.prog.site_objects.get(&site) {
            Some(&o) => self.session.prog.objects[o as usize].label.clone(),
            // KLEE's own objects (argv, environment, errno, ...): a site of their own.
            None => pspa::site::KLEE.into(),
        }
    }
}

/// The error of a value the view could not read faithfully.
fn unreadable(what: std::fmt::Arguments) -> anyhow::Error {
    anyhow::anyhow!("the state could not be read faithfully: {what}")
}

impl SymbolicState for KleeState<'_> {
    fn call(&self) -> anyhow::Result<(&str, Vec<Option<Vec<Target>>>)> {
        let name = self.session.prog.functions[self.function as usize]
            .name
            .as_str();
        let args = (0..self.view.num_args())
            .map(|i| {
                let mut out = Vec::new();
                match self.view.arg(i, &mut out) {
                    ffi::Read::Pointer => Ok(Some(out.iter().map(|t| self.target(t)).collect())),
                    ffi::Read::NoPointer => Ok(None),
                    _ => Err(unreadable(format_args!("argument {i}"))),
                }
            })
            .collect::<anyhow::Result<_>>()?;
        Ok((name, args))
    }

    fn globals(&self) -> Vec<(String, StateObjId)> {
        // Sorted: the reference projection's order must not depend on a hash map's.
        let mut v: Vec<(String, StateObjId)> = self
            .globals
            .globals
            .iter()
            .map(|(n, &id)| (n.clone(), id))
            .collect();
        v.sort_unstable();
        v
    }

    fn global(&self, name: &str) -> Option<StateObjId> {
        self.globals.globals.get(name).copied()
    }

    /// None when the state has no such object (the view's false).
    fn object(&self, id: StateObjId) -> anyhow::Result<Option<StateObject>> {
        let mut o = ffi::ObjectFfi {
            id: 0,
            site: 0,
            size: 0,
            ty: 0,
            ty_offset: 0,
        };
        if !self.view.object(id, &mut o) {
            return Ok(None);
        }
        Ok(Some(StateObject {
            id,
            site: self.site_label(o.site),
            size: o.size,
            ty: (o.ty != 0).then(|| ObjType::Llvm(o.ty).after(o.ty_offset)),
        }))
    }

    fn pointer_slots(&self, id: StateObjId) -> anyhow::Result<Vec<PointerSlot>> {
        if !self.view.pointer_slots(id) {
            return Err(unreadable(format_args!("the contents of object {id}")));
        }
        let out = self.view.slots_read();
        let mut slots: Vec<PointerSlot> = Vec::new();
        for t in out {
            let target = self.target(t);
            match slots.last_mut() {
                Some(s) if s.offset == t.slot => s.targets.push(target),
                _ => slots.push(PointerSlot {
                    offset: t.slot,
                    targets: pspa::state::Targets::from_buf([target]),
                }),
            }
        }
        Ok(slots)
    }
}

fn answer_mod_size(e: &Engine, a: &CallAnswer) -> usize {
    catch_unwind(AssertUnwindSafe(|| {
        a.get(e).map_or(0, |ans| ans.modset().len())
    }))
    .unwrap_or(0)
}

fn profile_row(r: &ffi::ProfileRow) -> pspa::skips::FunctionProfile {
    pspa::skips::FunctionProfile {
        function: r.function.clone(),
        line: r.line,
        calls: r.calls,
        result_used: r.result_used,
        instructions: r.instructions,
        forks: r.forks,
        path_instructions: r.path_instructions,
        analysed: r.analysed,
        mod_locations: r.mod_locations,
        watched: r.watched,
        read: r.read,
        read_after_mean: r.read_after_mean,
        unread: r.unread,
        analysis_s: r.analysis_s,
        warm_analyses: r.warm_analyses,
        analysis_needed: Some(r.analysis_needed),
        excluded: r.excluded.clone(),
        callers: r.callers.clone(),
        read_at: r.read_at.clone(),
        read_inside: r.read_inside.clone(),
    }
}

fn profile_of(rows: &[ffi::ProfileRow], instructions: u64, wall_s: f64) -> pspa::skips::Profile {
    pspa::skips::Profile {
        run: pspa::skips::RunInfo {
            instructions,
            wall_s,
        },
        functions: rows.iter().map(profile_row).collect(),
    }
}

fn rank_skips(
    rows: &[ffi::ProfileRow],
    instructions: u64,
    wall_s: f64,
    top: usize,
) -> Vec<ffi::SkipVerdict> {
    catch_unwind(AssertUnwindSafe(|| {
        let o = pspa::skips::RankOptions {
            top,
            ..Default::default()
        };
        pspa::skips::rank(&profile_of(rows, instructions, wall_s), &o)
            .into_iter()
            .map(|r| ffi::SkipVerdict {
                function: r.function,
                line: r.line,
                whole: r.whole,
                verdict: match r.verdict {
                    pspa::skips::Verdict::Skip => 0,
                    pspa::skips::Verdict::Candidate => 1,
                    pspa::skips::Verdict::Never => 2,
                },
                gain: r.gain,
                reason: r.reason,
            })
            .collect()
    }))
    .unwrap_or_default()
}

fn skip_stop_reason(
    row: &ffi::ProfileRow,
    instructions: u64,
    wall_s: f64,
    skips: u64,
    recoveries: u64,
) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        let run = pspa::skips::RunInfo {
            instructions,
            wall_s,
        };
        pspa::skips::stop_reason(
            &profile_row(row),
            &run,
            skips,
            recoveries,
            &Default::default(),
        )
        .unwrap_or_default()
    }))
    .unwrap_or_else(|_| "the ranking failed".into())
}

fn profile_csv(rows: &[ffi::ProfileRow], instructions: u64, wall_s: f64) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        profile_of(rows, instructions, wall_s).to_csv()
    }))
    .unwrap_or_default()
}

fn skip_cost() -> f64 {
    pspa::skips::RankOptions::default().skip_cost
}

fn skip_line(verdicts: &[ffi::SkipVerdict]) -> String {
    catch_unwind(AssertUnwindSafe(|| {
        let ranked: Vec<pspa::skips::Ranked> = verdicts
            .iter()
            .map(|v| pspa::skips::Ranked {
                function: v.function.clone(),
                line: v.line,
                whole: v.whole,
                verdict: match v.verdict {
                    0 => pspa::skips::Verdict::Skip,
                    1 => pspa::skips::Verdict::Candidate,
                    _ => pspa::skips::Verdict::Never,
                },
                gain: v.gain,
                read_ratio: None,
                reason: String::new(),
            })
            .collect();
        pspa::skips::skip_line(&ranked)
    }))
    .unwrap_or_default()
}

fn skip_default_top() -> usize {
    pspa::skips::RankOptions::default().top
}

fn skip_min_skips() -> u64 {
    pspa::skips::MIN_SKIPS
}
