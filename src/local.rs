//! The past-sensitive analysis of one call: the solver seeded with an initial abstract
//! state (Abs(s), paper 4.3), run over the functions the callee reaches only. Objects the
//! callee allocates get the program's static sites. Theorem 4.3: the result
//! over-approximates every state reachable from s inside the call.

use crate::abstraction::{AbsLoc, AbsObject, AbstractState, Origin, PostState};
use crate::analysis::Analysis;
use crate::facts::{FuncId, LayoutId, ObjId, ObjKind, Object, Program, VarId};
use crate::slice::Slice;
use crate::solver::{Node, Solver};
use roaring::RoaringBitmap;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

/// A location in a call's result, relative to its initial abstract state so that a cached
/// result can be translated to an isomorphic state (paper 4.5).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ResLoc {
    /// Field of abstract object `obj` of the initial state; None: field-insensitive.
    Abs { obj: u32, field: Option<u32> },
    /// A location of a program object the state does not have (a static site): its id in
    /// the whole program and its field (None: field-insensitive). Typed, not labelled: a
    /// large callee's sets hold thousands, and clients look them up by object.
    Static { obj: ObjId, field: Option<u32> },
    /// An object the solver made for this analysis only (a model's allocation at an
    /// indirect call), by label: it has no id of the program.
    Made(String),
}

impl ResLoc {
    pub fn field_part(field: Option<u32>) -> crate::site::Field {
        field.map_or(crate::site::Field::All, crate::site::Field::At)
    }

    /// The location's label (`SITE@ID.N`, `SITE.N`, `SITE.*`).
    pub fn label(&self, prog: &Program, abs: &AbstractState) -> String {
        match self {
            ResLoc::Abs { obj, field } => crate::site::location(
                &abs.objects[*obj as usize].label(),
                Self::field_part(*field),
            ),
            ResLoc::Static { obj, field } => {
                crate::site::location(&prog.objects[*obj as usize].label, Self::field_part(*field))
            }
            ResLoc::Made(l) => l.clone(),
        }
    }

    /// The `unknown` object a model made for input addresses (`Effect::Symbolic`): a set
    /// that names it may point anywhere. (A state's own `unknown` is an `Abs` object.)
    pub fn is_input_unknown(&self) -> bool {
        matches!(self, ResLoc::Made(l) if l.strip_suffix(".*") == Some(crate::site::UNKNOWN))
    }
}

/// Mod/ref of one call and what memory may look like after it.
#[derive(Clone, Debug, Default)]
pub struct CallResult {
    pub modset: Vec<ResLoc>,
    pub refset: Vec<ResLoc>,
    /// The locations of the objects the call may free (a subset of `modset`).
    pub freeset: Vec<ResLoc>,
    /// Empty unless asked for (only skipped calls need it).
    pub post: PostState,
    pub has_post: bool,
    pub live_functions: usize,
    /// The solver's work (`SolverStats::work`) for this result.
    pub work: u64,
    /// Opaque objects of the initial state whose contents the analysis read: the answer
    /// holds only once they are fetched (empty: it holds for the whole state).
    pub demand: Vec<u32>,
    /// What the analysis read, by kind (`ReadKey`): where an on-demand projection looks
    /// ahead when it fetches.
    pub read_fields: Vec<ReadKey>,
    /// The points-to set of every pointer an access of the call dereferences (empty
    /// unless asked for: only clients that resolve addresses need them).
    pub points_to: ValueSets,
    /// An indirect call of the call's code may go through the `unknown` object: its callee
    /// is not known, so neither are its effects (clients answer "may" for everything).
    pub calls_unknown: bool,
    /// Every function the call may run or call (the callee, the functions reached from it
    /// under the state's function pointers, and the declared functions they call), ids of
    /// the whole program, sorted: whether a skipped call may end the path (exit, abort).
    /// A call that ends the process and is not followed (`Solver::cut_exits`) is here,
    /// what it runs is not.
    pub calls: Vec<FuncId>,
}

/// Points-to sets of program variables, each distinct set stored once: at -O0 many
/// variables are reloads of one local and share a set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueSets {
    /// (program variable, index into `sets`), sorted by variable.
    pub vars: Vec<(VarId, u32)>,
    pub sets: Vec<Vec<ResLoc>>,
    /// The program's functions the analysis reached (sorted): the ones whose pointers
    /// have sets. A global's address is one variable of every function, so a variable with
    /// a set does not tell which function the analysis reached.
    pub functions: Vec<FuncId>,
}

impl ValueSets {
    pub fn get(&self, v: VarId) -> Option<&[ResLoc]> {
        let i = self.vars.binary_search_by_key(&v, |&(x, _)| x).ok()?;
        Some(&self.sets[self.vars[i].1 as usize])
    }

    pub fn len(&self) -> usize {
        self.vars.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Locations held, over all distinct sets (for cache sizes and memory reports).
    pub fn locations(&self) -> usize {
        self.sets.iter().map(|s| s.len()).sum()
    }
}

/// A kind of memory the analysis read. Isomorphic states read the same keys
/// (isomorphisms keep layouts and sites, and globals are their own sites).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReadKey {
    /// Field N of objects of a layout, through a load whose value goes on: a walk goes on
    /// from there (`Solver::walks`).
    Field(LayoutId, u32),
    /// Objects of a layout a load read, walked no further through this key (a pointer
    /// loaded to be compared: `o->owner == u` reads `o`).
    Layout(LayoutId),
    /// Anything in an untyped (field-insensitive) object of a static site, through a load
    /// (walked on from there).
    Untyped(Arc<str>),
    /// Objects of a site (any kind) whose contents flowed without a load (a copy: memcpy,
    /// a model's copy; an escape to unknown code): read, walked no further.
    Copied(Arc<str>),
    /// An object argument N points to, read without a load: the objects that argument
    /// points to are fetched ahead, whatever their site (a string constant copied: each
    /// call's is another global).
    ArgCopied(u32),
}

impl CallResult {
    /// How many locations remain once `@ID` is stripped (the paper's Table 1 measure),
    /// counted without building labels: `SITE@ID.f` and the static `SITE.f` are one.
    pub fn stripped_len(prog: &Program, abs: &AbstractState, locs: &[ResLoc]) -> usize {
        fn key<'a>(
            prog: &'a Program,
            abs: &'a AbstractState,
            l: &'a ResLoc,
        ) -> (&'a str, Option<u32>) {
            match l {
                ResLoc::Abs { obj, field } => (abs.objects[*obj as usize].site.as_ref(), *field),
                ResLoc::Static { obj, field } => {
                    (prog.objects[*obj as usize].label.as_ref(), *field)
                }
                ResLoc::Made(label) => {
                    let (site, f) =
                        crate::site::split_location(label).unwrap_or((label.as_str(), "*"));
                    (site, f.parse().ok())
                }
            }
        }
        locs.iter()
            .map(|l| key(prog, abs, l))
            .collect::<rustc_hash::FxHashSet<_>>()
            .len()
    }

    /// Whether the mod or ref set has the `unknown` object (see `Target::Unknown`).
    pub fn touches_unknown(abs: &AbstractState, r: &CallResult) -> bool {
        r.modset.iter().chain(&r.refset).any(|l| {
            l.is_input_unknown()
                || matches!(l, ResLoc::Abs { obj, .. } if &*abs.objects[*obj as usize].site == crate::abstraction::UNKNOWN_SITE)
        })
    }

    /// Labels of result locations in state `abs` (sorted, as `pspa analyze` prints them).
    pub fn labels(prog: &Program, abs: &AbstractState, locs: &[ResLoc]) -> Vec<String> {
        let mut v: Vec<String> = locs.iter().map(|l| l.label(prog, abs)).collect();
        v.sort();
        v.dedup();
        v
    }
}

/// The result of analysing one call.
pub struct CallAnalysis<'p> {
    /// Its `modref` holds only `walked` unless `sets`: `result_with` computes them then.
    pub analysis: Analysis<'p>,
    sets: bool,
    /// Solver object of each abstract object of the initial state.
    pub obj_map: Vec<ObjId>,
    /// The reverse: abstract object of each solver object that stands for one.
    abs_of: BTreeMap<ObjId, u32>,
    /// The program the solver ran over, when it is a slice (ids are the slice's).
    slice: Option<&'p Slice>,
    /// The callee, in the solver's ids.
    callee: FuncId,
}

/// Run the solver from `abs` over what its function reaches: over the whole program, or
/// over `slice` (which must hold the callee and every function the state points to).
pub fn analyze_call<'p>(
    prog: &'p Program,
    abs: &AbstractState,
    slice: Option<&'p Slice>,
) -> CallAnalysis<'p> {
    analyze_call_within(prog, abs, slice, None, false)
}

/// `analyze_call` stopped after `budget` units of solver work (`SolverStats::work`);
/// check `over_budget` before using the result. `cut_exits`: calls that end the
/// process are not followed (`Solver::cut_exits`).
pub fn analyze_call_within<'p>(
    prog: &'p Program,
    abs: &AbstractState,
    slice: Option<&'p Slice>,
    budget: Option<u64>,
    cut_exits: bool,
) -> CallAnalysis<'p> {
    let t = Instant::now();
    let sp: &'p Program = slice.map(|s| &s.prog).unwrap_or(prog);
    let obj_id = |p: ObjId| -> Option<ObjId> { slice.map_or(Some(p), |s| s.obj(p)) };
    let func_id = |f: FuncId| -> FuncId {
        slice.map_or(f, |s| {
            s.func(f)
                .expect("the slice holds every function of the state")
        })
    };
    // Globals of the state take their contents from it, not from their initialisers.
    let from_state: rustc_hash::FxHashSet<ObjId> = abs
        .objects
        .iter()
        .filter_map(|o| match o.origin {
            Origin::Program(p) if o.kind == ObjKind::Global => obj_id(p),
            _ => None,
        })
        .collect();
    let mut s = Solver::with_init(sp, |o| !from_state.contains(&o));
    s.budget = budget;
    s.cut_exits = cut_exits;
    // Only a state with opaque objects can demand more (another round): the sets of any
    // other are an answer, computed at once.
    let may_demand = abs.objects.iter().any(|o| o.opaque);
    if may_demand {
        s.track_reads();
    }
    let fields: usize = abs
        .objects
        .iter()
        .map(|o| sp.fields_of(o.layout) as usize)
        .sum();
    s.reserve_nodes(fields);
    let mut obj_map = Vec::with_capacity(abs.objects.len());
    let mut fresh = Vec::new();
    let first_fresh = s.objs.len() as ObjId;
    for o in &abs.objects {
        let id = match o.origin {
            Origin::Program(p) if obj_id(p).is_some() => {
                let p = obj_id(p).unwrap();
                if o.kind == ObjKind::Global {
                    s.objs[p as usize].uid = o.uid;
                }
                if o.layout.is_none() {
                    s.collapse(p);
                }
                p
            }
            // Objects of the state (unique sites), and program objects that no code of
            // the slice names (so no constraint of it can refer to them): objects of their
            // own, outliving the call.
            _ => {
                fresh.push((
                    Object {
                        label: o.site.clone(),
                        kind: o.kind,
                        layout: o.layout,
                        owner: None,
                        func: None,
                        readonly: match o.origin {
                            Origin::Program(p) => prog.objects[p as usize].readonly,
                            Origin::Unique(_) => false,
                        },
                    },
                    o.uid,
                ));
                first_fresh + fresh.len() as ObjId - 1
            }
        };
        obj_map.push(id);
    }
    s.add_objects(fresh);
    let node = |s: &Solver, l: AbsLoc| -> Node {
        match l {
            AbsLoc::Field { obj, field } => s.field_node(obj_map[obj as usize], field),
            AbsLoc::Func(f) => s.objs[sp.functions[func_id(f) as usize].obj as usize].base,
        }
    };
    for &(h, t) in &abs.edges {
        let (hn, tn) = (node(&s, h), node(&s, t));
        s.seed(hn, tn);
    }
    let callee = func_id(abs.function);
    let func = &sp.functions[callee as usize];
    for (i, targets) in abs.args.iter().enumerate() {
        let holder = match func.formals.get(i) {
            Some(Some(v)) => *v,
            Some(None) => continue,
            // Variadic arguments live in the callee's `...` object.
            None => match func.varargs {
                Some((vobj, _)) => s.objs[vobj as usize].base,
                None => continue,
            },
        };
        for &l in targets {
            let n = node(&s, l);
            s.seed(holder, n);
        }
    }
    let mut analysis = crate::analysis::analyze_from_with(s, &[callee], !may_demand);
    analysis.solve_ms = t.elapsed().as_secs_f64() * 1e3;
    let abs_of = obj_map
        .iter()
        .enumerate()
        .map(|(i, &o)| (o, i as u32))
        .collect();
    CallAnalysis {
        analysis,
        sets: !may_demand,
        obj_map,
        abs_of,
        slice,
        callee,
    }
}

impl<'p> CallAnalysis<'p> {
    /// The solve stopped at its work budget: there is no answer.
    pub fn over_budget(&self) -> bool {
        self.analysis.solver.over_budget
    }

    /// Functions (program ids) the solve bound whose bodies its slice lacked: without
    /// their effects the answer is incomplete, and the call is solved again with them.
    pub fn demanded_bodies(&self) -> Vec<FuncId> {
        let s = &self.analysis.solver;
        let mut v: Vec<FuncId> = s
            .demanded_bodies
            .iter()
            .map(|&g| {
                self.slice
                    .map_or(Some(g), |sl| sl.full_func(g))
                    .expect("a slice function has a program function")
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The call's result relative to its initial state (with the post-state if asked).
    pub fn result(&self, abs: &AbstractState, with_post: bool) -> CallResult {
        self.result_with(abs, with_post, false)
    }

    /// `result`, with the points-to sets of the accessed pointers if `with_points_to`.
    pub fn result_with(
        &self,
        abs: &AbstractState,
        with_post: bool,
        with_points_to: bool,
    ) -> CallResult {
        let s = &self.analysis.solver;
        let conv = |set: &RoaringBitmap| -> Vec<ResLoc> {
            let mut v: Vec<ResLoc> = set
                .iter()
                .map(|n| {
                    let o = s.obj_of(n);
                    let field = if s.is_fi(o) {
                        None
                    } else {
                        Some(s.field_of(n))
                    };
                    let full = match self.slice {
                        Some(sl) => sl.full_obj(o),
                        None => ((o as usize) < self.analysis.prog().objects.len()).then_some(o),
                    };
                    match (self.abs_of.get(&o), full) {
                        // A static site brought in by a skipped call's post-state is the
                        // program's site, not an object of the state: a client maps an
                        // object allocated later to `Static`, and must find it so named.
                        (Some(&i), _) => match &abs.objects[i as usize] {
                            AbsObject {
                                origin: Origin::Program(obj),
                                uid: None,
                                ..
                            } => ResLoc::Static { obj: *obj, field },
                            _ => ResLoc::Abs { obj: i, field },
                        },
                        (None, Some(obj)) => ResLoc::Static { obj, field },
                        (None, None) => ResLoc::Made(self.analysis.label(n)),
                    }
                })
                .collect();
            v.sort();
            v.dedup();
            v
        };
        let f = self.callee as usize;
        let (demand, read_fields) = self.reads(abs);
        // A round that must read more objects is solved again with them: its sets are not
        // an answer (the on-demand loop goes on while `demand` is not empty), so they are
        // left empty; the last round's are computed here. Modref was 14 % of an m4 miss.
        let late = (!self.sets && demand.is_empty() && !self.over_budget())
            .then(|| crate::modref::compute_for(s, self.callee));
        #[cfg(debug_assertions)]
        if let Some(late) = &late {
            // The reference: every live function's sets, of which the callee's.
            let all = crate::modref::compute(s);
            assert!(
                all.walked == self.analysis.modref.walked,
                "modref::walked must be what the full mod/ref walks (the demand was made from it)"
            );
            assert!(
                [&all.modset[f], &all.refset[f], &all.freeset[f]]
                    .into_iter()
                    .eq(late.iter()),
                "modref::compute_for must give compute's sets of the callee"
            );
        }
        let [modset, refset, freeset] = match (&late, self.sets) {
            (_, true) => {
                let m = &self.analysis.modref;
                [&m.modset, &m.refset, &m.freeset]
                    .map(|sets| sets.get(f).map_or_else(Vec::new, &conv))
            }
            (Some(late), false) => [&late[0], &late[1], &late[2]].map(&conv),
            (None, false) => [Vec::new(), Vec::new(), Vec::new()],
        };
        CallResult {
            modset,
            refset,
            freeset,
            post: if with_post {
                self.post_state(abs)
            } else {
                PostState::default()
            },
            has_post: with_post,
            live_functions: s.stats.live_functions,
            work: s.stats.work,
            demand,
            read_fields,
            points_to: if with_points_to {
                self.value_sets(&conv)
            } else {
                ValueSets::default()
            },
            calls_unknown: self.calls_unknown(abs),
            calls: self.calls(),
        }
    }

    /// The functions the call may run (live) or call, in the whole program's ids.
    fn calls(&self) -> Vec<FuncId> {
        let s = &self.analysis.solver;
        let full = |f: FuncId| self.slice.map_or(Some(f), |sl| sl.full_func(f));
        let mut v: Vec<FuncId> = (0..s.live.len())
            .filter(|&f| s.live[f])
            .flat_map(|f| std::iter::once(f as FuncId).chain(s.callees[f].iter().copied()))
            .filter_map(full)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether an indirect call of a live function may call through the `unknown` object.
    fn calls_unknown(&self, abs: &AbstractState) -> bool {
        let s = &self.analysis.solver;
        let range = abs
            .objects
            .iter()
            .position(|o| &*o.site == crate::abstraction::UNKNOWN_SITE)
            .map(|u| s.field_range(self.obj_map[u]));
        // The call's own `klee_make_symbolic` makes input addresses (`Effect::Symbolic`).
        let input = s.unknown_input.map(|u| s.objs[u as usize].base);
        if range.is_none() && input.is_none() {
            return false;
        }
        s.prog.calls.iter().any(|c| match c.callee {
            crate::facts::Callee::Indirect(v) if s.live[c.caller as usize] => {
                let p = s.points_to(v);
                range
                    .as_ref()
                    .is_some_and(|r| p.range_cardinality(r.start..r.end) > 0)
                    || input.is_some_and(|b| p.contains(b))
            }
            _ => false,
        })
    }

    /// The sets of the pointers the accesses of the call's live functions dereference,
    /// keyed by program variable.
    fn value_sets(&self, conv: &dyn Fn(&RoaringBitmap) -> Vec<ResLoc>) -> ValueSets {
        value_sets(
            &self.analysis.solver,
            &|v| self.slice.map_or(Some(v), |sl| sl.full_var(v)),
            &|f| self.slice.map_or(Some(f), |sl| sl.full_func(f)),
            conv,
        )
    }

    /// The opaque objects of `abs` whose contents the analysis read (a field was the
    /// source of a load, copy or escape edge, or a deep access walked the object), and
    /// the `ReadKey`s read. Empty unless `abs` has opaque objects.
    fn reads(&self, abs: &AbstractState) -> (Vec<u32>, Vec<ReadKey>) {
        if !abs.objects.iter().any(|o| o.opaque) {
            return (Vec::new(), Vec::new());
        }
        let s = &self.analysis.solver;
        let reads = s.reads();
        let loads = s.loads();
        let walks = s.walks();
        let walked = &self.analysis.modref.walked;
        // The objects read and loaded from, once: a range count per object of the state
        // cost its size times each fetch round's (a 40,000-object list: most of a call).
        let objects_of = |nodes: &roaring::RoaringBitmap| -> roaring::RoaringBitmap {
            nodes.iter().map(|n| s.obj_of(n)).collect()
        };
        let (read_objs, load_objs, walk_objs) =
            (objects_of(&reads), objects_of(loads), objects_of(walks));
        let mut demand = Vec::new();
        let mut fields = Vec::new();
        for (i, o) in abs.objects.iter().enumerate() {
            let so = self.obj_map[i];
            let range = s.field_range(so);
            let read = read_objs.contains(so);
            if o.opaque && (read || walked.contains(so)) {
                demand.push(i as u32);
            }
            if !(read || walked.contains(so)) {
                continue;
            }
            // An object read without a load (copied, escaped; one a load read has its
            // `Layout` or `Untyped` key below): the next call fetches the objects of its
            // site ahead when it meets them, and those of the argument that pointed to it,
            // or each would cost a round of its own every call, a whole solve again (make's
            // `__exit_function_table`, read by the escape of exit's handlers; the name
            // `asn1_find_node` gets, memcpy'd into its local `n`: every miss solved twice).
            // By site, not by layout: a layout copied once would fetch every object of it.
            if read && !load_objs.contains(so) && !walked.contains(so) {
                fields.push(ReadKey::Copied(o.site.clone()));
                let points_here =
                    |l: &AbsLoc| matches!(l, AbsLoc::Field { obj, .. } if *obj == i as u32);
                for (k, targets) in abs.args.iter().enumerate() {
                    if targets.iter().any(points_here) {
                        fields.push(ReadKey::ArgCopied(k as u32));
                    }
                }
            }
            match o.layout {
                // A deep access reads every field of what it walks; a collapsed object's
                // fields are one.
                Some(l) if walked.contains(so) || (s.is_fi(so) && walk_objs.contains(so)) => {
                    fields.extend(
                        (0..s.prog.layouts[l as usize].abs_size()).map(|f| ReadKey::Field(l, f)),
                    );
                }
                // An object a load read is fetched ahead next time; only the fields whose
                // loaded value goes on are followed: a copy reads the fields of what it
                // copies (demanded above) but walks nowhere, and neither does a pointer
                // loaded to be compared.
                Some(l) => {
                    if load_objs.contains(so) {
                        fields.push(ReadKey::Layout(l));
                    }
                    if !s.is_fi(so) {
                        fields.extend(
                            walks
                                .range(range.start..range.end)
                                .map(|n| ReadKey::Field(l, n - range.start)),
                        );
                    }
                }
                None if load_objs.contains(so) || walked.contains(so) => {
                    fields.push(ReadKey::Untyped(o.site.clone()))
                }
                None => {}
            }
        }
        fields.sort_unstable();
        fields.dedup();
        (demand, fields)
    }

    /// The solver's final memory graph over the state's objects and every program object
    /// that may now be pointed to, for merging into a later call's state.
    pub fn post_state(&self, abs: &AbstractState) -> PostState {
        let s = &self.analysis.solver;
        let prog = s.prog;
        let mut objects: Vec<AbsObject> = abs.objects.clone();
        let mut index = self.abs_of.clone();
        for (i, o) in objects.iter_mut().enumerate() {
            if s.is_fi(self.obj_map[i]) {
                o.layout = None;
            }
            // What the call leaves in an object is listed whole: nothing is left unread.
            o.opaque = false;
        }
        let mut abs_of = |o: ObjId, objects: &mut Vec<AbsObject>| -> Option<u32> {
            if let Some(&i) = index.get(&o) {
                return Some(i);
            }
            let ob = &s.objs[o as usize];
            if ob.kind == ObjKind::Stack {
                // A static stack object is a local of an activation that began inside the
                // call: it is dead once the call returns.
                return None;
            }
            if ob.kind == ObjKind::Func || (o as usize) >= prog.objects.len() {
                // Functions are AbsLoc::Func; solver-made objects (model allocations at
                // indirect calls) have no stable identity across analyses.
                return None;
            }
            let full = self.slice.map_or(Some(o), |sl| sl.full_obj(o))?;
            let i = objects.len() as u32;
            objects.push(AbsObject {
                origin: Origin::Program(full),
                site: ob.label.clone(),
                uid: None,
                kind: ob.kind,
                layout: if s.is_fi(o) { None } else { ob.layout },
                opaque: false,
            });
            index.insert(o, i);
            Some(i)
        };
        let mut edges = Vec::new();
        let to_loc = |s: &Solver,
                      n: Node,
                      objects: &mut Vec<AbsObject>,
                      abs_of: &mut dyn FnMut(ObjId, &mut Vec<AbsObject>) -> Option<u32>|
         -> Option<AbsLoc> {
            let o = s.obj_of(n);
            if let Some(f) = s.objs[o as usize].func {
                return self
                    .slice
                    .map_or(Some(f), |sl| sl.full_func(f))
                    .map(AbsLoc::Func);
            }
            let i = abs_of(o, objects)?;
            Some(AbsLoc::Field {
                obj: i,
                field: if s.is_fi(o) { 0 } else { s.field_of(n) },
            })
        };
        for o in 0..s.objs.len() as ObjId {
            let ob = &s.objs[o as usize];
            if ob.kind == ObjKind::Func {
                continue;
            }
            for field in s.field_range(o) {
                let pts: RoaringBitmap = s.points_to(field);
                if pts.is_empty() {
                    continue;
                }
                let Some(h) = to_loc(s, field, &mut objects, &mut abs_of) else {
                    continue;
                };
                for t in pts.iter() {
                    if let Some(tl) = to_loc(s, t, &mut objects, &mut abs_of) {
                        edges.push((h, tl));
                    }
                }
            }
        }
        PostState { objects, edges }
    }
}

/// The points-to sets of the pointers the accesses of `s`'s live functions dereference,
/// keyed by program variable (`full` maps the solver's variables to the program's), each
/// distinct set once. The accesses include the arguments library models read or write
/// through (a `memcpy` call's destination): KLEE runs such a body byte by byte, and its
/// accesses take the set of the call's argument (the body is never analysed).
pub fn value_sets(
    s: &Solver,
    full: &dyn Fn(VarId) -> Option<VarId>,
    full_func: &dyn Fn(FuncId) -> Option<FuncId>,
    conv: &dyn Fn(&RoaringBitmap) -> Vec<ResLoc>,
) -> ValueSets {
    // Keyed by the variable's representative first (merged variables share a set), then
    // by contents.
    let mut by_rep: rustc_hash::FxHashMap<u32, u32> = Default::default();
    let mut by_set: rustc_hash::FxHashMap<Vec<u32>, u32> = Default::default();
    let mut bitmaps: Vec<RoaringBitmap> = Vec::new();
    let mut out = ValueSets::default();
    for f in 0..s.prog.functions.len() {
        if !s.live[f] {
            continue;
        }
        if let Some(ff) = full_func(f as FuncId) {
            out.functions.push(ff);
        }
        for (a, _) in &s.accesses[f] {
            // Nodes the solver made (the unknown world's) are no program variable.
            if a.ptr >= s.prog.num_vars {
                continue;
            }
            let Some(fv) = full(a.ptr) else { continue };
            let rep = s.find_ro(a.ptr);
            let i = match by_rep.get(&rep) {
                Some(&i) => i,
                None => {
                    let pts = s.points_to(a.ptr);
                    let n = bitmaps.len() as u32;
                    let i = *by_set.entry(pts.iter().collect()).or_insert(n);
                    if i == n {
                        bitmaps.push(pts);
                    }
                    by_rep.insert(rep, i);
                    i
                }
            };
            out.vars.push((fv, i));
        }
    }
    out.vars.sort_unstable();
    out.vars.dedup();
    out.functions.sort_unstable();
    out.sets = bitmaps.iter().map(conv).collect();
    out
}
