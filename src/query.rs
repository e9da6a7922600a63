//! The query API the clients share: what an analysed call answers about the live objects
//! of a later state and about the program's pointers, without re-solving.
//!
//! A client (resolution pruning, WIT, chopping, `--pspa-check`) holds an [`Answer`] per
//! analysed call. A live object is named by its id, its allocation site and whether it
//! existed when the call was analysed; [`Answer::node_of`] maps it to its abstract node:
//! its unique site if the analysed state had it, its static site if it was allocated
//! later. `may_write` / `may_read` ask the mod/ref sets about a byte range of it;
//! `points_to` gives the set of a pointer the call dereferences. An answer translated
//! from a cached summary answers the same (tests/reuse.rs checks it).

use crate::abstraction::{AbstractState, PostState, UNKNOWN_SITE};
use crate::facts::{FuncId, LayoutId, ObjId, ObjKind, Program, VarId};
use crate::local::{CallResult, ResLoc, ValueSets};
use crate::state::StateObjId;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// An analysed call's answer: immutable, shared by every state that keeps it.
#[derive(Clone, Debug)]
pub struct Answer {
    /// Object of the analysed state -> its abstract object.
    uids: FxHashMap<StateObjId, u32>,
    /// Layout of each abstract object (None: field-insensitive).
    layouts: Vec<Option<LayoutId>>,
    /// Sorted.
    modset: Vec<ResLoc>,
    refset: Vec<ResLoc>,
    /// May-free (sorted): the locations of objects the call may free.
    freeset: Vec<ResLoc>,
    /// Shared: SPA's answers all hold the whole program's.
    points_to: Arc<ValueSets>,
    /// The call may write through a value that may point anywhere (its mod-set has the
    /// `unknown` object), or call through one: any object may have been written, so no
    /// set can be trusted.
    writes_unknown: bool,
    /// It may read through such a value (its ref-set has `unknown`).
    reads_unknown: bool,
    /// The abstract `unknown` object, if the state had one. It points to itself (see
    /// `abstraction`): whatever is loaded through it has it in its set, so a set without
    /// it is exact unless the call writes through it.
    unknown_obj: Option<u32>,
    /// Some set names `unknown` (reported per call).
    unknown: bool,
    post: Option<PostState>,
    /// A whole-program answer (SPA): every object is its static site.
    whole_program: bool,
    /// Made without a state (`Answer::writeless`): an object of the state is its static
    /// site, which its sets name only for statics (a global is one object).
    state_free: bool,
    /// The functions the call may run or call, sorted (`CallResult::calls`); for a
    /// whole-program answer, empty: `whole_program_of` names its function, whose calls
    /// the whole program's call graph gives (`whole_program_calls`).
    calls: Vec<FuncId>,
    whole_program_of: Option<FuncId>,
    /// The call may call through a value that may point anywhere (`unknown`): it may run
    /// any function (`may_call_any`).
    calls_unknown: bool,
}

/// A live object of a state, as a client sees it.
#[derive(Clone, Copy, Debug)]
pub struct LiveObject {
    pub id: StateObjId,
    /// The program object of its allocation site (None: an object KLEE made itself).
    pub site: Option<ObjId>,
    /// It existed in the state the call was analysed from.
    pub existed: bool,
}

/// Whether a pointer may point into a live object (`Answer::pointed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pointed {
    /// It cannot.
    No,
    /// Its set names the object's node.
    InSet,
    /// The answer cannot tell (the set names `unknown`, the call may write anywhere, or
    /// the object is one the analysis has no node for): it may.
    Unknown,
}

/// The abstract node of a live object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// Abstract object N of the analysed state (its unique site `SITE@ID`).
    Unique(u32),
    /// Allocated after the analysed state: the program's static site.
    Static(ObjId),
    /// A stack object allocated after the analysed state: a local of an activation the
    /// call began, dead once it returns (mod/ref leave locals out).
    Local,
    /// It existed but the call could not reach it: no set holds it.
    Unreached,
    /// Its site is not the program's (KLEE made it): nothing is known.
    Unknown,
}

impl Answer {
    /// The answer of a call analysed from `abs`.
    pub fn new(abs: &AbstractState, r: CallResult) -> Answer {
        let uids = abs
            .objects
            .iter()
            .enumerate()
            .filter_map(|(i, o)| Some((o.uid?, i as u32)))
            .collect();
        let layouts = abs.objects.iter().map(|o| o.layout).collect();
        let unknown_obj = abs
            .objects
            .iter()
            .position(|o| &*o.site == UNKNOWN_SITE)
            .map(|i| i as u32);
        let names_unknown = |set: &[ResLoc]| {
            unknown_obj.is_some_and(|u| in_set_unique(set, u, None))
                || set.iter().any(ResLoc::is_input_unknown)
        };
        let writes_unknown = names_unknown(&r.modset) || r.calls_unknown;
        let reads_unknown = names_unknown(&r.refset);
        let unknown =
            writes_unknown || reads_unknown || r.points_to.sets.iter().any(|s| names_unknown(s));
        debug_assert!(
            r.modset.windows(2).all(|w| w[0] < w[1]) && r.refset.windows(2).all(|w| w[0] < w[1]),
            "sets are sorted"
        );
        Answer {
            uids,
            layouts,
            modset: r.modset,
            refset: r.refset,
            freeset: r.freeset,
            points_to: Arc::new(r.points_to),
            writes_unknown,
            reads_unknown,
            unknown_obj,
            unknown,
            post: r.has_post.then_some(r.post),
            whole_program: false,
            state_free: false,
            calls: r.calls,
            whole_program_of: None,
            calls_unknown: r.calls_unknown,
        }
    }

    /// The answer of a call of a function whose writes do not depend on the state
    /// (`crate::writeless`), made without its state: it writes the static objects
    /// `statics` (each a global, one object in every state, or a model's storage) and
    /// nothing else the state holds, frees nothing, runs `calls`, and may read anything
    /// (its ref-set is not computed). An object of a later state is its static site.
    /// `post`: it is skipped, and its post-state adds nothing to the points-to graph (it
    /// stores no pointer outside its frame; the older pending calls' are joined as for
    /// any answer).
    pub fn writeless(calls: Vec<FuncId>, statics: &[ObjId], post: bool) -> Answer {
        // Sorted as the statics are (`writeless::Summary::statics`).
        debug_assert!(
            statics.windows(2).all(|w| w[0] < w[1]),
            "statics are sorted"
        );
        let modset: Vec<ResLoc> = statics
            .iter()
            .map(|&obj| ResLoc::Static { obj, field: None })
            .collect();
        Answer {
            uids: FxHashMap::default(),
            layouts: Vec::new(),
            modset,
            refset: Vec::new(),
            freeset: Vec::new(),
            points_to: Arc::new(ValueSets::default()),
            writes_unknown: false,
            reads_unknown: true,
            unknown_obj: None,
            unknown: false,
            post: post.then(PostState::default),
            whole_program: false,
            state_free: true,
            calls,
            whole_program_of: None,
            calls_unknown: false,
        }
    }

    /// The whole-program answer for calls of `f` (SPA): its mod/ref sets over static
    /// sites, the same for every state. No points-to sets (clients resolve as KLEE would).
    pub fn whole_program(
        a: &crate::analysis::Analysis,
        f: crate::facts::FuncId,
        points_to: Option<Arc<ValueSets>>,
    ) -> Answer {
        let set = whole_program_locs(a);
        Answer::whole_program_from(
            f,
            [
                &a.modref.modset[f as usize],
                &a.modref.refset[f as usize],
                &a.modref.freeset[f as usize],
            ]
            .map(set),
            points_to,
            calls_through_input(a)[f as usize],
        )
    }

    /// A whole-program answer of `f` from its mod, ref and free sets; `calls_unknown`: it
    /// may call through an input address (`Effect::Symbolic`).
    fn whole_program_from(
        f: FuncId,
        [modset, refset, freeset]: [Vec<ResLoc>; 3],
        points_to: Option<Arc<ValueSets>>,
        calls_unknown: bool,
    ) -> Answer {
        // Input addresses may point anywhere: a call that writes through one may write
        // anything, as a state's `unknown` says (`Answer::new`).
        let writes_unknown = calls_unknown || modset.iter().any(ResLoc::is_input_unknown);
        let reads_unknown = refset.iter().any(ResLoc::is_input_unknown);
        Answer {
            uids: FxHashMap::default(),
            layouts: Vec::new(),
            modset,
            refset,
            freeset,
            points_to: points_to.unwrap_or_default(),
            writes_unknown,
            reads_unknown,
            unknown_obj: None,
            unknown: writes_unknown || reads_unknown,
            post: None,
            whole_program: true,
            state_free: false,
            calls: Vec::new(),
            whole_program_of: Some(f),
            calls_unknown,
        }
    }

    /// A whole-program answer (SPA), the same for every state.
    pub fn is_whole_program(&self) -> bool {
        self.whole_program
    }

    /// Whether the call may run or call function `f` (its own code, what it reaches, the
    /// declared functions they call). `callees`: the whole program's call graph
    /// (`Solver::callees`), which a whole-program answer needs.
    pub fn may_call(&self, f: FuncId, callees: &[Vec<FuncId>]) -> bool {
        self.may_call_any(&[f], callees)
    }

    /// Whether the call may run or call any of `fs` (one walk of the call graph for a
    /// whole-program answer, whatever the number of functions asked about).
    pub fn may_call_any(&self, fs: &[FuncId], callees: &[Vec<FuncId>]) -> bool {
        if self.calls_unknown {
            return true;
        }
        let whole;
        let calls = match self.whole_program_of {
            Some(from) => {
                whole = whole_program_calls(callees, from);
                &whole
            }
            None => &self.calls,
        };
        fs.iter().any(|f| calls.binary_search(f).is_ok())
    }

    /// The whole program's points-to sets of every dereferenced pointer (SPA), shared by
    /// the answers of every function.
    pub fn whole_program_points_to(a: &crate::analysis::Analysis) -> Arc<ValueSets> {
        Arc::new(crate::local::value_sets(
            &a.solver,
            &|v| Some(v),
            &|f| Some(f),
            &whole_program_locs(a),
        ))
    }
}

/// Every function's whole-program (SPA) answer, kept without the solver that made them:
/// the sets as the solver's bitmaps and the locations they name, an [`Answer`] made for a
/// function when it is first asked for. Making every function's answer at once held about
/// 1 GB on SQLite, and a past-sensitive run asks for a few (the calls its analysis cannot
/// answer: `pspa-klee`'s whole-program fallback).
pub struct WholeProgramAnswers {
    /// By function: mod, ref and free sets over solver locations.
    sets: Vec<[roaring::RoaringBitmap; 3]>,
    /// The locations any set names, and each one's result location by its rank in them.
    named: roaring::RoaringBitmap,
    locs: Vec<ResLoc>,
    /// The whole program's call graph (indirect calls resolved): `Answer::may_call_any`
    /// of a whole-program answer needs it, and chopping asks which functions a call reaches.
    pub callees: Vec<Vec<FuncId>>,
    points_to: Option<Arc<ValueSets>>,
    /// By function: it may call through an input address (`Effect::Symbolic`), itself or
    /// in what it calls.
    calls_unknown: Vec<bool>,
    /// Some code may store an address through an input address: it may land in any
    /// object, where the whole-program sets do not have it, so no whole-program answer
    /// can be trusted (each says "anything").
    poisoned: bool,
    answers: Vec<std::cell::OnceCell<Arc<Answer>>>,
}

impl WholeProgramAnswers {
    /// From a whole-program analysis; with `points_to`, every answer shares the program's
    /// points-to sets (resolution and WIT query them).
    pub fn new(a: &crate::analysis::Analysis, points_to: bool) -> WholeProgramAnswers {
        let m = &a.modref;
        let n = a.prog().functions.len();
        let sets: Vec<[roaring::RoaringBitmap; 3]> = (0..n)
            .map(|f| {
                [
                    m.modset[f].clone(),
                    m.refset[f].clone(),
                    m.freeset[f].clone(),
                ]
            })
            .collect();
        let mut named = roaring::RoaringBitmap::new();
        for s in sets.iter().flatten() {
            named |= s;
        }
        let locs = named.iter().map(|l| whole_program_loc(a, l)).collect();
        WholeProgramAnswers {
            sets,
            named,
            locs,
            callees: a.solver.callees.clone(),
            points_to: points_to.then(|| Answer::whole_program_points_to(a)),
            calls_unknown: calls_through_input(a),
            poisoned: stores_through_input(a),
            answers: (0..n).map(|_| Default::default()).collect(),
        }
    }

    /// The answer for calls of `f` (None: not a function of the program).
    pub fn answer(&self, f: FuncId) -> Option<Arc<Answer>> {
        self.answer_ref(f).cloned()
    }

    /// `answer`, borrowed.
    pub fn answer_ref(&self, f: FuncId) -> Option<&Arc<Answer>> {
        let cell = self.answers.get(f as usize)?;
        let a = cell.get_or_init(|| {
            let set = |b: &roaring::RoaringBitmap| {
                let mut v: Vec<ResLoc> = b
                    .iter()
                    .map(|l| {
                        // Every location of a set is in `named`: its rank is its index + 1.
                        let i = self.named.rank(l) as usize - 1;
                        self.locs[i].clone()
                    })
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            let [m, r, fr] = &self.sets[f as usize];
            Arc::new(Answer::whole_program_from(
                f,
                [set(m), set(r), set(fr)],
                self.points_to.clone(),
                // An address stored where the sets do not have it may be a function's too.
                self.calls_unknown[f as usize] || self.poisoned,
            ))
        });
        Some(a)
    }

    /// How many functions' answers have been made.
    pub fn made(&self) -> usize {
        self.answers.iter().filter(|c| c.get().is_some()).count()
    }
}

/// By function: whether it, or a function it calls, makes an indirect call through a
/// pointer that may hold an input address (`Effect::Symbolic`'s `unknown` object): such a
/// call may run anything.
fn calls_through_input(a: &crate::analysis::Analysis) -> Vec<bool> {
    let s = &a.solver;
    // With unknown code (the last index): a callback it runs may call through one, and
    // then so may every call of unknown code.
    let n = a.prog().functions.len() + 1;
    let mut flagged = vec![false; n];
    let Some(u) = s.unknown_input else {
        return flagged;
    };
    let ub = s.objs[u as usize].base;
    let mut work = Vec::new();
    for c in &s.calls {
        if let crate::facts::Callee::Indirect(v) = c.callee {
            let g = c.caller as usize;
            if g < n && !flagged[g] && s.points_to(v).contains(ub) {
                flagged[g] = true;
                work.push(g);
            }
        }
    }
    // Callers of a flagged function are flagged: their sets include its effects.
    let mut callers = vec![Vec::new(); n];
    for (f, cs) in s.callees.iter().enumerate().take(n) {
        for &g in cs {
            if (g as usize) < n {
                callers[g as usize].push(f);
            }
        }
    }
    while let Some(g) = work.pop() {
        for &f in &callers[g] {
            if !flagged[f] {
                flagged[f] = true;
                work.push(f);
            }
        }
    }
    flagged
}

/// Whether an address may be stored through an input address (the `unknown` object of
/// `Effect::Symbolic` holds more than itself).
fn stores_through_input(a: &crate::analysis::Analysis) -> bool {
    let s = &a.solver;
    s.unknown_input
        .is_some_and(|u| s.points_to(s.objs[u as usize].base).len() > 1)
}

/// A solver location as a result location: a program object's by id, the solver's own
/// objects' by label.
fn whole_program_loc(a: &crate::analysis::Analysis, n: u32) -> ResLoc {
    let s = &a.solver;
    let o = s.obj_of(n);
    let field = if s.is_fi(o) {
        None
    } else {
        Some(s.field_of(n))
    };
    if (o as usize) < a.prog().objects.len() {
        ResLoc::Static { obj: o, field }
    } else {
        ResLoc::Made(a.label(n))
    }
}

/// A whole-program location set as result locations: the program's objects by id, the
/// solver's own by label.
fn whole_program_locs<'a>(
    a: &'a crate::analysis::Analysis,
) -> impl Fn(&roaring::RoaringBitmap) -> Vec<ResLoc> + 'a {
    move |b| {
        let mut v: Vec<ResLoc> = b.iter().map(|n| whole_program_loc(a, n)).collect();
        v.sort();
        v.dedup();
        v
    }
}

impl Answer {
    pub fn node_of(&self, prog: &Program, o: &LiveObject) -> Node {
        // KLEE's own objects (errno, the ctype tables, argv): a library model's static
        // storage (`RetStatic`: `__errno_location()`) stands for them without being them,
        // even when the state reached them (`&errno` stored in a struct).
        let Some(s) = o.site else {
            return Node::Unknown;
        };
        if let Some(&i) = self.uids.get(&o.id) {
            return Node::Unique(i);
        }
        // Allocated inside an allocator wrapper: the analysis's site is the wrapper's call,
        // which KLEE does not record (an object of the state the call cannot reach is
        // unreached whatever its site).
        if prog.wrapped_sites.contains(&s) && (!o.existed || self.whole_program) {
            return Node::Unknown;
        }
        if o.existed {
            // SPA has no unique sites: an object of the state is its static site.
            return if self.whole_program || self.state_free {
                Node::Static(s)
            } else {
                Node::Unreached
            };
        }
        if prog.objects[s as usize].kind == ObjKind::Stack {
            Node::Local
        } else {
            Node::Static(s)
        }
    }

    /// Whether the call may write bytes `range` (offset, length; None: somewhere) of `o`.
    pub fn may_write(&self, prog: &Program, o: &LiveObject, range: Option<(u64, u64)>) -> bool {
        self.writes_unknown || self.may(prog, &self.modset, o, range)
    }

    /// Whether the call may free `o` (a write of unknown target may free anything).
    pub fn may_free(&self, prog: &Program, o: &LiveObject) -> bool {
        self.writes_unknown || self.may(prog, &self.freeset, o, None)
    }

    /// Whether the call may read bytes `range` of `o`.
    pub fn may_read(&self, prog: &Program, o: &LiveObject, range: Option<(u64, u64)>) -> bool {
        self.writes_unknown || self.reads_unknown || self.may(prog, &self.refset, o, range)
    }

    /// Whether a set names `o`'s bytes `range`. Conservative where the answer cannot tell:
    /// an object of no known site, a local of the call (the callers handle `unknown`).
    fn may(
        &self,
        prog: &Program,
        set: &[ResLoc],
        o: &LiveObject,
        range: Option<(u64, u64)>,
    ) -> bool {
        match self.node_of(prog, o) {
            Node::Unique(i) => in_set_unique(
                set,
                i,
                fields(prog, self.layouts[i as usize], range).as_deref(),
            ),
            Node::Static(s) => in_set_static(
                set,
                s,
                fields(prog, prog.objects[s as usize].layout, range).as_deref(),
            ),
            Node::Unreached => false,
            // KLEE's own object (argv, errno): the call touches it as itself (an object of
            // the state it reached) or through a library model's static storage, which
            // stands for it and is a heap site (see `node_of`).
            Node::Unknown if o.site.is_none() && !self.whole_program => {
                self.uids
                    .get(&o.id)
                    .is_some_and(|&i| in_set_unique(set, i, None))
                    || set.iter().any(|l| match l {
                        ResLoc::Static { obj, .. } => prog
                            .objects
                            .get(*obj as usize)
                            .is_none_or(|x| x.kind == ObjKind::Heap),
                        _ => false,
                    })
            }
            Node::Local | Node::Unknown => true,
        }
    }

    /// The points-to set of a pointer the call dereferences (a program variable); None
    /// when the call has none for it (not asked for, or not dereferenced by the call).
    pub fn points_to(&self, v: VarId) -> Option<&[ResLoc]> {
        self.points_to.get(v)
    }

    /// The pointers the answer has a set for.
    pub fn pointers(&self) -> impl Iterator<Item = VarId> + '_ {
        self.points_to.vars.iter().map(|&(v, _)| v)
    }

    /// Whether `pointer` may point into `o` (at any offset). None when the answer has no
    /// set for `pointer`: the client must assume it may.
    pub fn may_point_to(&self, prog: &Program, pointer: VarId, o: &LiveObject) -> Option<bool> {
        self.pointed(prog, pointer, o).map(|p| p != Pointed::No)
    }

    /// Whether `pointer` may point into `o`, and why: `None` if it has no set.
    pub fn pointed(&self, prog: &Program, pointer: VarId, o: &LiveObject) -> Option<Pointed> {
        let set = self.points_to(pointer)?;
        let named = |b: bool| if b { Pointed::InSet } else { Pointed::No };
        // A value loaded through `unknown` has it in its set; any other set is exact unless
        // the call may have written anywhere.
        if self.writes_unknown
            || self
                .unknown_obj
                .is_some_and(|u| in_set_unique(set, u, None))
            || set
                .iter()
                .rev()
                .take_while(|l| matches!(l, ResLoc::Made(_)))
                .any(ResLoc::is_input_unknown)
        {
            return Some(Pointed::Unknown);
        }
        if o.site.is_none() {
            // KLEE's own objects (argv, errno, the host's ctype tables): named by their
            // unique site if the analysed state reached them, and otherwise reachable only
            // through what a model or unknown code returned (`foreign_storage`), which
            // stands for them without being them, or through what such memory holds
            // (`*__ctype_b_loc()`: the solver makes such cells point to the storage
            // itself, `Function::ret_cells_hold_pointers`).
            let foreign = set.iter().any(|l| match l {
                ResLoc::Made(_) => true,
                ResLoc::Static { obj, .. } => prog.foreign_storage().contains(obj),
                ResLoc::Abs { .. } => false,
            });
            return Some(match self.uids.get(&o.id) {
                _ if foreign || self.whole_program => Pointed::Unknown,
                Some(&i) => named(in_set_unique(set, i, None)),
                // An object of the state the call did not reach, as `node_of`'s Unreached.
                None if o.existed => Pointed::No,
                None => Pointed::Unknown,
            });
        }
        Some(match self.node_of(prog, o) {
            Node::Unique(i) => named(in_set_unique(set, i, None)),
            Node::Static(s) => named(in_set_static(set, s, None)),
            Node::Unreached => Pointed::No,
            // A local of an activation the call began: the sets name its stack site (mod/ref
            // leave locals out, points-to sets do not), unless its function's body is a
            // model's, which the analysis never saw.
            Node::Local => match o.site {
                Some(s) if !owner_modelled(prog, s) => named(in_set_static(set, s, None)),
                _ => Pointed::Unknown,
            },
            Node::Unknown => Pointed::Unknown,
        })
    }

    /// The layout of abstract object `i` of the analysed state (None: field-insensitive).
    pub fn layout(&self, i: u32) -> Option<LayoutId> {
        self.layouts.get(i as usize).copied().flatten()
    }

    /// Some set names the `unknown` object: the queries it concerns answer "may" (every
    /// query, if the call may write through it).
    pub fn unknown(&self) -> bool {
        self.unknown
    }

    /// What memory may look like after the call (kept for skipped calls only).
    pub fn post(&self) -> Option<&PostState> {
        self.post.as_ref()
    }

    /// Make the post-state also cover `older`'s (the skipped calls pending when this one
    /// was analysed): a later analysis on the path then joins this one post-state alone.
    pub fn join_older_post(&mut self, older: &PostState) {
        if let Some(p) = &self.post {
            self.post = Some(older.union(p));
        }
    }

    pub fn modset(&self) -> &[ResLoc] {
        &self.modset
    }

    pub fn refset(&self) -> &[ResLoc] {
        &self.refset
    }

    pub fn freeset(&self) -> &[ResLoc] {
        &self.freeset
    }

    /// Heap bytes this answer holds (capacities, not lengths): what a handle costs.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let loc = |v: &Vec<ResLoc>| {
            v.capacity() * size_of::<ResLoc>()
                + v.iter()
                    .map(|l| {
                        if let ResLoc::Made(s) = l {
                            s.capacity()
                        } else {
                            0
                        }
                    })
                    .sum::<usize>()
        };
        let mut n = self.uids.capacity() * (size_of::<(StateObjId, u32)>() + 1)
            + self.layouts.capacity() * size_of::<Option<LayoutId>>()
            + loc(&self.modset)
            + loc(&self.refset)
            + loc(&self.freeset)
            + self.points_to.vars.capacity() * size_of::<(VarId, u32)>()
            + self.points_to.functions.capacity() * size_of::<crate::facts::FuncId>()
            + self.points_to.sets.capacity() * size_of::<Vec<ResLoc>>()
            + self.points_to.sets.iter().map(loc).sum::<usize>();
        if let Some(p) = &self.post {
            n += p.objects.capacity() * size_of::<crate::abstraction::AbsObject>()
                + p.objects.iter().map(|o| o.site.len()).sum::<usize>()
                + p.edges.capacity()
                    * size_of::<(crate::abstraction::AbsLoc, crate::abstraction::AbsLoc)>();
        }
        n
    }
}

/// The abstract fields of bytes `range` of an object of layout `l`; None: every field.
fn fields(prog: &Program, l: Option<LayoutId>, range: Option<(u64, u64)>) -> Option<Vec<u32>> {
    let (l, (off, len)) = (l?, range?);
    Some(prog.layouts[l as usize].fields_in(off as i64, len.max(1)))
}

fn in_set_unique(set: &[ResLoc], obj: u32, fields: Option<&[u32]>) -> bool {
    // ResLoc orders by kind, object, then field (None first): the object's entries are a run.
    let start = set.partition_point(|l| *l < ResLoc::Abs { obj, field: None });
    set[start..]
        .iter()
        .take_while(|l| matches!(l, ResLoc::Abs { obj: o, .. } if *o == obj))
        .any(|l| match l {
            ResLoc::Abs { field, .. } => field_matches(*field, fields),
            _ => false,
        })
}

/// Whether stack object `obj` belongs to a function whose body a model replaces (a library
/// function, an allocator wrapper): the analysis has no facts of it.
fn owner_modelled(prog: &Program, obj: ObjId) -> bool {
    prog.objects[obj as usize].owner.is_none_or(|f| {
        let f = &prog.functions[f as usize];
        f.defined && f.model.is_some()
    })
}

fn in_set_static(set: &[ResLoc], obj: ObjId, fields: Option<&[u32]>) -> bool {
    let start = set.partition_point(|l| *l < ResLoc::Static { obj, field: None });
    set[start..]
        .iter()
        .take_while(|l| matches!(l, ResLoc::Static { obj: o, .. } if *o == obj))
        .any(|l| match l {
            ResLoc::Static { field, .. } => field_matches(*field, fields),
            _ => false,
        })
}

/// A set's field (None: the whole object) against the fields asked (None: any).
fn field_matches(field: Option<u32>, fields: Option<&[u32]>) -> bool {
    match (field, fields) {
        (None, _) | (_, None) => true,
        (Some(f), Some(fs)) => fs.contains(&f),
    }
}

/// The functions a call of `f` may run or call, per the whole program's call graph.
pub fn whole_program_calls(callees: &[Vec<FuncId>], f: FuncId) -> Vec<FuncId> {
    let mut seen = vec![false; callees.len()];
    let mut stack = vec![f];
    let mut out = Vec::new();
    while let Some(g) = stack.pop() {
        if std::mem::replace(&mut seen[g as usize], true) {
            continue;
        }
        out.push(g);
        stack.extend(callees[g as usize].iter().copied());
    }
    out.sort_unstable();
    out
}
