//! Inclusion-based (Andersen) points-to solver, field-sensitive, with wave propagation.
//!
//! Nodes are variables and the abstract fields of objects, in one index space; a points-to
//! set holds *locations* (field nodes). Each round collapses the cycles of the copy graph
//! (Tarjan), pushes differences along it in topological order, then applies the complex
//! constraints (load, store, gep, calls, memcpy) to what is new. An object accessed at an
//! unknown offset degrades to field-insensitive: its field nodes are merged into one, which
//! keeps every state admissible (paper 4.2).
//!
//! The solver starts from an initial points-to graph (`seed_*`) and solves only what the
//! entry functions reach, so the same code serves the whole-program analysis (SPA) and the
//! past-sensitive local analysis seeded from a symbolic state (PSPA).

use crate::facts::*;
use crate::layout::Layout;
use roaring::RoaringBitmap;
use rustc_hash::{FxHashMap, FxHashSet};

mod calls;
mod collapse;
mod escape;
mod memcpy;
mod model_effects;
mod offline_merge;
mod pts;
pub use pts::PtsSet;
mod union_find;

use memcpy::MemCopyState;
use offline_merge::MergeKey;

pub type Node = u32;
/// A node's copy-edge successors.
type Succ = smallvec::SmallVec<[Node; 4]>;
const NONE: u32 = u32::MAX;

/// An object as the solver sees it (the program's objects plus those added for seeding or
/// allocated by models at indirect call sites): the object and where its field nodes are.
/// Derefs to the `Object`, so `ob.label` (the static site), `ob.kind`... read through.
#[derive(Clone, Debug)]
pub struct ObjInfo {
    pub obj: Object,
    /// First field node.
    pub base: Node,
    pub nfields: u32,
    /// The identity of a state's object (its label is `SITE@ID`): kept apart and printed
    /// on demand, not formatted per object per call (a tenth of a list walk's analysis).
    pub uid: Option<u64>,
}

impl ObjInfo {
    /// The object's full label: `SITE@ID` for a state's object, its site otherwise.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        match self.uid {
            Some(_) => std::borrow::Cow::Owned(crate::site::object(&self.obj.label, self.uid)),
            None => std::borrow::Cow::Borrowed(&self.obj.label),
        }
    }
}

impl std::ops::Deref for ObjInfo {
    type Target = Object;
    fn deref(&self) -> &Object {
        &self.obj
    }
}

impl std::ops::DerefMut for ObjInfo {
    fn deref_mut(&mut self) -> &mut Object {
        &mut self.obj
    }
}

#[derive(Clone, Debug)]
enum Cx {
    /// `walk`: the loaded value goes on somewhere (`Program::used_vars`).
    Load {
        dst: Node,
        size: u64,
        walk: bool,
    },
    Store {
        src: Node,
        size: u64,
    },
    Gep {
        dst: Node,
        gep: u32,
    },
    Call(CallId),
    MemCopy(u32),
    EscapeClosure,
}

/// covering()'s memo: (layout, field, size) -> the abstract fields the access overlaps.
type CoverMemo = FxHashMap<(crate::facts::LayoutId, u32, u64), std::rc::Rc<[u32]>>;

/// Counters reported by `pspa analyze` and the benchmarks.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SolverStats {
    pub nodes: usize,
    pub rounds: usize,
    pub copy_edges: usize,
    pub merged_in_cycles: usize,
    /// Variables merged before solving: defined by the same constraint over the same inputs.
    pub merged_offline: usize,
    pub collapsed_objects: usize,
    pub escaped_objects: usize,
    pub live_functions: usize,
    pub indirect_call_targets: usize,
    /// Calls not followed because they end the process (`cut_exits`).
    pub exit_calls_cut: usize,
    /// Indirect call targets skipped because their arity cannot match the call.
    pub arity_mismatches: usize,
    /// Indirect call targets skipped because pointer-carrying parameters or results do not
    /// line up with the call's.
    pub signature_mismatches: usize,
    /// Pointers moved into the middle of a field, now pointing to every field.
    pub spread_pointers: usize,
    /// Points-to elements offered to sets: the solver's work, a measure that does not
    /// depend on the machine (what `budget` bounds).
    pub work: u64,
}

pub struct Solver<'p> {
    pub prog: &'p Program,
    pub objs: Vec<ObjInfo>,
    /// For each node: the object it is a field of (NONE for variables), and the field.
    node_obj: Vec<u32>,
    node_field: Vec<u32>,
    rep: Vec<Node>,
    pts: Vec<PtsSet>,
    /// What joined pts since the node last propagated to its successors (kept only for
    /// nodes with successors), and since its complex constraints last ran (kept only for
    /// nodes with complex constraints). Transient differences instead of copies of what
    /// was already handled: the copies were as large as the sets themselves.
    pdelta: Vec<PtsSet>,
    cdelta: Vec<PtsSet>,
    /// In place up to four: most nodes have one or two successors, and a heap vector
    /// per node's first edge was a tenth of a small miss (libtasn1's `_asn1_find_up`).
    succ: Vec<Succ>,
    /// Successor lists that grew since they were last normalised.
    succ_dirty: Vec<bool>,
    complex: Vec<Vec<Cx>>,
    /// Copy edges added so far, duplicates included (they are dropped when successor lists
    /// are normalised each round; a hash set of all edges cost 300 MB on SQLite).
    edge_adds: usize,
    changed: Vec<bool>,
    /// The nodes `changed` may be set for (a superset): each round touches these, not every
    /// node. A local analysis seeds thousands of field nodes and walks a list one cell a
    /// round; scanning every node each round made it quadratic.
    changed_list: Vec<Node>,
    /// Cycle detection's arrays, kept between rounds.
    scc: crate::scc::Scratch,
    /// Each node's position in the last topological order (u32::MAX: none yet), the copy
    /// edges added by then, and the rounds since: cycle detection runs again only when
    /// the copy graph grew enough (see `solve`).
    topo_pos: Vec<u32>,
    scc_edges: usize,
    scc_rounds: usize,
    /// Whether the last full pass merged a cycle: if not, the next one waits longer.
    scc_merged: bool,
    /// Nodes the incremental passes visited since the last full one: a full pass (cycle
    /// detection over every listed node) runs only once they have done as much work as
    /// it costs (four times, after a pass that merged nothing), so that its cost is
    /// amortised over the rounds it serves.
    incr_work: usize,
    /// Representatives that may have successors (a superset, `listed` marks members).
    succ_nodes: Vec<Node>,
    listed: Vec<bool>,
    dirty: Vec<Node>,
    in_dirty: Vec<bool>,
    geps: Vec<Gep>,
    memcopies: Vec<MemCopyState>,
    pending_collapse: Vec<ObjId>,
    /// Calls: the program's plus synthetic ones (callbacks, escaped function pointers).
    pub calls: Vec<CallSite>,
    bound: FxHashSet<(CallId, FuncId)>,
    pub live: Vec<bool>,
    /// Call graph over functions; index `functions.len()` is the pseudo-function standing
    /// for unknown external code.
    pub callees: Vec<Vec<FuncId>>,
    /// Memory accesses per function (program's plus model effects), for mod/ref.
    pub accesses: Vec<Vec<(Access, bool)>>,
    /// Pointers each function passes to a freeing model (`Effect::Free`; unknown code:
    /// everything escaped), for the may-free sets. Their writes are in `accesses` too.
    pub frees: Vec<Vec<Node>>,
    /// The node standing for everything that escaped into unknown code.
    pub ext: Node,
    /// Unknown code's read and write of everything escaped are in its accesses.
    ext_accesses: bool,
    /// The `unknown` object of input addresses, once a model made it (`unknown_object`).
    pub unknown_input: Option<ObjId>,
    escaped: Vec<bool>,
    /// Field-insensitive objects: unknown type, or collapsed after an unknown offset.
    fi: Vec<bool>,
    /// Field nodes of collapsed objects other than their base (not canonical).
    noncanon: RoaringBitmap,
    model_vars: FxHashMap<(CallId, u32), Node>,
    /// Constraint identity -> the single-definition variable that stands for it.
    merge_keys: FxHashMap<MergeKey<'p>, Node>,
    /// covering(): abstract fields a (layout, field, size) access overlaps, relative.
    cover_memo: std::cell::RefCell<CoverMemo>,
    /// Reused buffers of the per-round passes (a list walk makes a round per cell: an
    /// allocation each per round was a tenth of such a solve).
    cx_scratch: Vec<Cx>,
    heap_scratch: Vec<std::cmp::Reverse<(u32, Node)>>,
    grown_scratch: Vec<Node>,
    /// When on (`track_reads`): every field node whose contents flowed somewhere (the
    /// source of a load, a copy or an escape edge). The demand-driven projection fetches
    /// an object of the state only when one of its fields is here: contents that flow
    /// nowhere cannot change any answer.
    reads: Option<RoaringBitmap>,
    /// Of those, the fields a load read, as opposed to a copy, which reads the fields of the
    /// objects it copies and nothing beyond them.
    loads: RoaringBitmap,
    /// Of those, the fields read by a load whose value goes on (`Cx::Load::walk`): where a
    /// walk goes (`p = p->next`). `p->up->right == p` loads `right` and looks no further.
    walks: RoaringBitmap,
    /// The results (`Cx::Load::dst`) of loads that only compare, merged offline with a
    /// later load whose value goes on.
    walk_forced: FxHashSet<Node>,
    /// Stop once this much work is done (`stats.work`); the answer is then incomplete and
    /// `over_budget` says so (a call's analysis must not cost more than it can save).
    pub budget: Option<u64>,
    /// Calls of functions that end the process (`Function::ends_process`) are not followed:
    /// the answer is what the code does when it returns to its caller (a past-sensitive
    /// call's analysis; see `SessionOptions::follow_exits`). Off for whole programs.
    pub cut_exits: bool,
    pub over_budget: bool,
    /// Functions bound to a call whose bodies the program (a slice) does not hold
    /// (`Function::address_only`), in the order met: the answer lacks their effects, and
    /// the caller solves again over a slice with them.
    pub demanded_bodies: Vec<FuncId>,
    pub stats: SolverStats,
}

impl<'p> Solver<'p> {
    /// A solver seeded with the global initialisers.
    pub fn new(prog: &'p Program) -> Solver<'p> {
        Solver::with_init(prog, |_| true)
    }

    /// A solver seeded with the initialisers of the globals `keep` accepts (the others
    /// get their contents from a state).
    pub fn with_init(prog: &'p Program, keep: impl Fn(ObjId) -> bool) -> Solver<'p> {
        let nf = prog.functions.len();
        let mut s = Solver {
            prog,
            objs: Vec::with_capacity(prog.objects.len()),
            node_obj: vec![NONE; prog.num_vars as usize],
            node_field: vec![0; prog.num_vars as usize],
            rep: (0..prog.num_vars).collect(),
            pts: vec![PtsSet::new(); prog.num_vars as usize],
            pdelta: vec![PtsSet::new(); prog.num_vars as usize],
            cdelta: vec![PtsSet::new(); prog.num_vars as usize],
            succ: vec![Succ::new(); prog.num_vars as usize],
            succ_dirty: vec![false; prog.num_vars as usize],
            complex: vec![Vec::new(); prog.num_vars as usize],
            edge_adds: 0,
            changed: vec![false; prog.num_vars as usize],
            changed_list: Vec::new(),
            scc: Default::default(),
            topo_pos: vec![u32::MAX; prog.num_vars as usize],
            scc_edges: 0,
            scc_rounds: 0,
            // Never read: round 1 always runs a pass.
            scc_merged: true,
            incr_work: 0,
            succ_nodes: Vec::new(),
            listed: vec![false; prog.num_vars as usize],
            dirty: Vec::new(),
            in_dirty: vec![false; prog.num_vars as usize],
            geps: Vec::new(),
            memcopies: Vec::new(),
            pending_collapse: Vec::new(),
            calls: prog.calls.clone(),
            bound: FxHashSet::default(),
            live: vec![false; nf],
            callees: vec![Vec::new(); nf + 1],
            accesses: vec![Vec::new(); nf + 1],
            frees: vec![Vec::new(); nf + 1],
            ext: 0,
            ext_accesses: false,
            unknown_input: None,
            escaped: Vec::new(),
            fi: Vec::new(),
            noncanon: RoaringBitmap::new(),
            model_vars: FxHashMap::default(),
            merge_keys: FxHashMap::default(),
            cover_memo: Default::default(),
            cx_scratch: Vec::new(),
            heap_scratch: Vec::new(),
            grown_scratch: Vec::new(),
            reads: None,
            loads: RoaringBitmap::new(),
            walks: RoaringBitmap::new(),
            walk_forced: FxHashSet::default(),
            budget: None,
            cut_exits: false,
            over_budget: false,
            demanded_bodies: Vec::new(),
            stats: SolverStats::default(),
        };
        // Every node the program's objects make, at once: growing thirteen vectors node by
        // node was a third of a small local analysis (`reserve_nodes`).
        let fields: usize = prog
            .objects
            .iter()
            .map(|o| prog.fields_of(o.layout) as usize)
            .sum();
        s.reserve_nodes(fields + 1);
        for o in &prog.objects {
            s.add_object(o.clone());
        }
        s.ext = s.new_node();
        s.complex[s.ext as usize].push(Cx::EscapeClosure);
        for &(o, off, t, toff) in &prog.init {
            if keep(o) {
                s.seed_mem(o, off, t, toff);
            }
        }
        s.install(&prog.init_constraints);
        s
    }

    fn new_node(&mut self) -> Node {
        let n = self.rep.len() as Node;
        self.node_obj.push(NONE);
        self.node_field.push(0);
        self.rep.push(n);
        self.pts.push(PtsSet::new());
        self.pdelta.push(PtsSet::new());
        self.cdelta.push(PtsSet::new());
        self.succ.push(Succ::new());
        self.succ_dirty.push(false);
        self.complex.push(Vec::new());
        self.changed.push(false);
        self.listed.push(false);
        self.topo_pos.push(u32::MAX);
        self.in_dirty.push(false);
        n
    }

    /// `n` new nodes at once (an object's fields): each vector grown once.
    fn new_nodes(&mut self, n: usize) {
        let end = self.rep.len() + n;
        let first = self.rep.len() as Node;
        self.node_obj.resize(end, NONE);
        self.node_field.resize(end, 0);
        self.rep.extend(first..end as Node);
        self.pts.resize_with(end, PtsSet::new);
        self.pdelta.resize_with(end, PtsSet::new);
        self.cdelta.resize_with(end, PtsSet::new);
        self.succ.resize_with(end, Succ::new);
        self.succ_dirty.resize(end, false);
        self.complex.resize_with(end, Vec::new);
        self.changed.resize(end, false);
        self.listed.resize(end, false);
        self.topo_pos.resize(end, u32::MAX);
        self.in_dirty.resize(end, false);
    }

    /// Room for `n` more nodes (objects' fields, model variables) without regrowing.
    pub fn reserve_nodes(&mut self, n: usize) {
        self.node_obj.reserve(n);
        self.node_field.reserve(n);
        self.rep.reserve(n);
        self.pts.reserve(n);
        self.pdelta.reserve(n);
        self.cdelta.reserve(n);
        self.succ.reserve(n);
        self.succ_dirty.reserve(n);
        self.complex.reserve(n);
        self.changed.reserve(n);
        self.listed.reserve(n);
        self.topo_pos.reserve(n);
        self.in_dirty.reserve(n);
    }

    /// Record the fields whose contents flow somewhere (see `reads`); call before solving.
    pub fn track_reads(&mut self) {
        self.reads = Some(RoaringBitmap::new());
    }

    /// The field nodes read so far (empty unless `track_reads` was called).
    pub fn reads(&self) -> RoaringBitmap {
        self.reads.clone().unwrap_or_default()
    }

    /// The field nodes loads read so far (a subset of `reads`).
    pub fn loads(&self) -> &RoaringBitmap {
        &self.loads
    }

    /// The field nodes loads whose values go on read so far (a subset of `loads`).
    pub fn walks(&self) -> &RoaringBitmap {
        &self.walks
    }

    /// Add an object (a unique site of a seeded state, or a model allocation).
    pub fn add_object(&mut self, o: Object) -> ObjId {
        let id = self.objs.len() as ObjId;
        let base = self.rep.len() as Node;
        self.new_nodes(self.prog.fields_of(o.layout) as usize);
        self.push_object(o, None, base);
        id
    }

    /// Add objects (each with its state identity, if any), numbered from `objs.len()` on.
    /// The nodes of all are made at once: per object, growing each of the per-node
    /// vectors was a fifth of building a past-sensitive solver.
    pub fn add_objects(&mut self, objs: Vec<(Object, Option<u64>)>) {
        let total: usize = objs
            .iter()
            .map(|(o, _)| self.prog.fields_of(o.layout) as usize)
            .sum();
        let mut base = self.rep.len() as Node;
        self.new_nodes(total);
        self.objs.reserve(objs.len());
        self.escaped.reserve(objs.len());
        self.fi.reserve(objs.len());
        for (o, uid) in objs {
            base += self.push_object(o, uid, base);
        }
    }

    /// Object `o` over the nodes made for it from `base` on; its number of fields.
    fn push_object(&mut self, o: Object, uid: Option<u64>, base: Node) -> u32 {
        let id = self.objs.len() as ObjId;
        let nfields = self.prog.fields_of(o.layout);
        let (b, e) = (base as usize, (base + nfields) as usize);
        self.node_obj[b..e].fill(id);
        for (f, slot) in self.node_field[b..e].iter_mut().enumerate() {
            *slot = f as u32;
        }
        self.fi.push(o.layout.is_none());
        self.escaped.push(false);
        self.objs.push(ObjInfo {
            obj: o,
            base,
            nfields,
            uid,
        });
        nfields
    }

    pub fn layout(&self, o: ObjId) -> Option<&'p Layout> {
        self.objs[o as usize]
            .layout
            .map(|l| &self.prog.layouts[l as usize])
    }

    /// Whether object `o` is (now) field-insensitive.
    #[inline]
    pub fn is_fi(&self, o: ObjId) -> bool {
        self.fi[o as usize]
    }

    /// The location of byte `off` of object `o`.
    pub fn loc(&self, o: ObjId, off: i64) -> Node {
        let ob = &self.objs[o as usize];
        match self.layout(o) {
            Some(l) if !self.is_fi(o) => ob.base + l.field_at(off),
            _ => ob.base,
        }
    }

    /// Canonical location: the base for field-insensitive objects.
    #[inline]
    pub fn canon(&self, loc: Node) -> Node {
        let o = self.node_obj[loc as usize];
        if self.fi[o as usize] {
            self.objs[o as usize].base
        } else {
            loc
        }
    }

    pub fn obj_of(&self, loc: Node) -> ObjId {
        self.node_obj[loc as usize]
    }

    pub fn field_of(&self, loc: Node) -> u32 {
        self.node_field[loc as usize]
    }

    // ---- seeding -----------------------------------------------------------------------

    /// Field (o, off) initially points to (t, toff).
    pub fn seed_mem(&mut self, o: ObjId, off: i64, t: ObjId, toff: i64) {
        let holder = self.loc(o, off);
        let target = self.loc(t, toff);
        self.add_pts(holder, target);
    }

    /// Variable v initially points to (t, toff).
    pub fn seed_var(&mut self, v: VarId, t: ObjId, toff: i64) {
        let target = self.loc(t, toff);
        self.add_pts(v, target);
    }

    /// Node `n` (a variable or a field node) initially points to location `loc`.
    pub fn seed(&mut self, n: Node, loc: Node) {
        self.add_pts(n, loc);
    }

    /// The canonical field nodes of object `o`: its base alone when field-insensitive.
    pub fn field_range(&self, o: ObjId) -> std::ops::Range<Node> {
        let ob = &self.objs[o as usize];
        ob.base..ob.base + if self.is_fi(o) { 1 } else { ob.nfields }
    }

    /// The node of abstract field `field` of object `o` (its base when field-insensitive).
    pub fn field_node(&self, o: ObjId, field: u32) -> Node {
        let ob = &self.objs[o as usize];
        if self.is_fi(o) || field >= ob.nfields {
            ob.base
        } else {
            ob.base + field
        }
    }

    fn mark_changed(&mut self, r: Node) {
        if !self.changed[r as usize] {
            self.changed[r as usize] = true;
            self.changed_list.push(r);
        }
        if !self.complex[r as usize].is_empty() && !self.in_dirty[r as usize] {
            self.in_dirty[r as usize] = true;
            self.dirty.push(r);
        }
    }

    /// Copy edge a -> b: pts(b) ⊇ pts(a) from now on.
    fn add_edge(&mut self, a: Node, b: Node) {
        // Memory contents leave a field only through an edge out of its node (loads,
        // copies, escapes all add one); a variable's out-edges read no memory.
        if let Some(r) = self.reads.as_mut() {
            if self.node_obj[a as usize] != NONE {
                r.insert(a);
            }
        }
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb || self.succ[ra as usize].last() == Some(&rb) {
            return;
        }
        self.succ[ra as usize].push(rb);
        self.note_succ(ra);
        self.succ_dirty[ra as usize] = true;
        self.edge_adds += 1;
        if !self.pts[ra as usize].is_empty() {
            let src = std::mem::take(&mut self.pts[ra as usize]);
            self.grow(rb, &src);
            self.pts[ra as usize] = src;
        }
    }

    fn add_complex(&mut self, n: Node, cx: Cx) {
        let r = self.find(n);
        self.complex[r as usize].push(cx);
        // Process the new constraint against everything already known.
        self.cdelta[r as usize] = self.pts[r as usize].clone();
        if !self.in_dirty[r as usize] {
            self.in_dirty[r as usize] = true;
            self.dirty.push(r);
        }
    }

    fn install(&mut self, constraints: &'p [Constraint]) {
        let single = self.prog.single_def();
        let used = self.prog.used_vars();
        for c in constraints {
            if let Some((dst, w)) = self.merge_with(c, single) {
                // A load merged into an earlier one that only compares: the earlier one
                // walks from now on, and so from what it already read.
                if let Constraint::Load { ptr, size, .. } = *c {
                    let goes_on = |v: VarId| used.get(v as usize).copied().unwrap_or(true);
                    if goes_on(dst) && !goes_on(w) && self.walk_forced.insert(w) {
                        self.walk_from_read(ptr, size);
                    }
                }
                self.stats.merged_offline += 1;
                self.unite(dst, w);
                continue;
            }
            match c {
                Constraint::AddrOf { dst, obj, offset } => {
                    let l = self.loc(*obj, *offset);
                    self.add_pts(*dst, l);
                }
                Constraint::Copy { dst, src } => self.add_edge(*src, *dst),
                Constraint::Load { dst, ptr, size } => self.add_complex(
                    *ptr,
                    Cx::Load {
                        dst: *dst,
                        size: *size,
                        walk: used.get(*dst as usize).copied().unwrap_or(true),
                    },
                ),
                Constraint::Store { ptr, src, size } => self.add_complex(
                    *ptr,
                    Cx::Store {
                        src: *src,
                        size: *size,
                    },
                ),
                Constraint::Gep { dst, src, gep } => {
                    let g = self.intern_gep(gep.clone());
                    self.add_complex(*src, Cx::Gep { dst: *dst, gep: g });
                }
                Constraint::MemCopy { dst, src, size } => self.add_memcopy(*dst, *src, *size),
                Constraint::Escape { src } => {
                    let e = self.ext;
                    self.add_edge(*src, e)
                }
            }
        }
    }

    /// The fields a load of `size` bytes through `ptr` read so far join `walks` (what is
    /// still pending it reads later, as a forced walk).
    fn walk_from_read(&mut self, ptr: VarId, size: u64) {
        if self.reads.is_none() {
            return;
        }
        let r = self.find(ptr) as usize;
        let locs: Vec<Node> = self.pts[r]
            .iter()
            .filter(|&l| !self.cdelta[r].contains(l))
            .collect();
        for loc in locs {
            for f in self.covering(loc, size).iter() {
                self.walks.insert(f);
            }
        }
    }

    fn intern_gep(&mut self, g: Gep) -> u32 {
        self.geps.push(g);
        (self.geps.len() - 1) as u32
    }

    // ---- solving ---------------------------------------------------------------------------

    /// Solve from the current seeds, over the functions reachable from `entries`. An entry
    /// runs once with what its formals hold: one whose body a model replaces applies the
    /// whole model to them (`apply_body_model`), so the whole-program analysis leaves those
    /// out of its entries (`analysis::spa_entries`).
    pub fn solve(&mut self, entries: &[FuncId]) {
        // Those first: activating another entry binds its direct calls, which would
        // activate a replaced callee as a callee.
        let prog = self.prog;
        let (first, rest): (Vec<FuncId>, Vec<FuncId>) = entries
            .iter()
            .partition(|&&f| prog.functions[f as usize].body_replaced());
        for f in first.into_iter().chain(rest) {
            self.activate_as(f, true);
        }
        loop {
            self.stats.rounds += 1;
            // Cycle detection and a full topological pass cost the copy graph's size. A
            // round that added few edges since the last one (a walk down a list adds a
            // couple a round, for thousands of rounds) propagates only from the nodes that
            // changed, in the last order: cycles found later are merged later, which
            // costs time, never answers. A full pass every few rounds regardless made a
            // walk of n cells cost n^2/8 (a 20,000-cell list: 11 s, 80 % in Tarjan); it
            // now waits until the incremental passes have visited as many nodes as it
            // would (uncollapsed cycles make them revisit nodes, so they pay for it), or
            // the graph has an eighth more edges. When the last pass found no cycle, it
            // waits four times the visits, or half as many edges again: a walk whose
            // loads close no cycle (libtasn1's tree searches) paid passes that merged
            // nothing, a fifth of `asn1_find_node`'s miss, while SQLite's solves, whose
            // passes merge, were 6 % slower under the longer wait.
            let grown = self.edge_adds - self.scc_edges;
            let (work_x, edges_div) = if self.scc_merged { (1, 8) } else { (4, 2) };
            if self.stats.rounds == 1
                || (self.scc_rounds >= 8 && self.incr_work >= work_x * self.succ_nodes.len())
                || grown > (self.scc_edges / edges_div).max(256)
            {
                let topo = self.collapse_cycles();
                for (i, &v) in topo.iter().enumerate() {
                    self.topo_pos[v as usize] = i as u32;
                }
                self.scc_edges = self.edge_adds;
                self.scc_rounds = 0;
                self.incr_work = 0;
                self.propagate(&topo);
            } else {
                self.scc_rounds += 1;
                self.propagate_changed();
            }
            if self.out_of_budget() {
                return;
            }
            let grew = self.process_complex();
            if self.out_of_budget() {
                return;
            }
            self.apply_collapses();
            if log::log_enabled!(log::Level::Trace) {
                self.trace_big_sets();
            }
            if !grew && self.dirty.is_empty() && self.changed_list.is_empty() {
                break;
            }
        }
        self.stats.nodes = self.rep.len();
        // Sets may still hold fields of objects collapsed after they joined: the queries
        // (`points_to`) canonicalise what they read. Rewriting every set here was 15 % of
        // an m4 miss, most of it sets no query reads.
        self.normalize_succ();
        self.stats.copy_edges = self.succ.iter().map(|s| s.len()).sum();
        if log::log_enabled!(log::Level::Debug) {
            let (p, q, c) = self.bitmap_bytes();
            log::debug!("points-to bitmaps: {} MB sets, {} MB pending propagation, {} MB pending constraints; {} copy edges", p >> 20, q >> 20, c >> 20, self.stats.copy_edges);
        }
        self.stats.escaped_objects = self.escaped.iter().filter(|&&e| e).count();
    }

    /// Trace aid for precision problems: the largest points-to sets after a round.
    fn trace_big_sets(&self) {
        let mut big: Vec<(u64, Node)> = (0..self.rep.len() as Node)
            .filter(|&n| self.rep[n as usize] == n)
            .map(|n| (self.pts[n as usize].len(), n))
            .collect();
        big.sort_unstable_by(|a, b| b.cmp(a));
        log::trace!("round {}: largest points-to sets", self.stats.rounds);
        for &(len, n) in big.iter().take(8) {
            let name = if self.node_obj[n as usize] == NONE {
                self.prog.var_name(n).to_string()
            } else {
                self.objs[self.node_obj[n as usize] as usize]
                    .name()
                    .into_owned()
            };
            let sample: Vec<String> = self.pts[n as usize]
                .iter()
                .take(6)
                .map(|l| {
                    self.objs[self.node_obj[l as usize] as usize]
                        .name()
                        .into_owned()
                })
                .collect();
            log::trace!("  {len:6} {name} -> {sample:?}");
        }
    }

    /// Tarjan over the copy graph: merge strongly connected nodes, return the
    /// representatives with edges in topological order.
    fn collapse_cycles(&mut self) -> Vec<Node> {
        let n = self.rep.len();
        self.normalize_succ();
        // After normalize_succ every listed node is a representative (self loops dropped
        // may have left a list empty). Taken, not copied: it is as long as the graph;
        // nothing may list a node (`note_succ`) until it is put back.
        let listed = std::mem::take(&mut self.succ_nodes);
        let mut scratch = std::mem::take(&mut self.scc);
        let succ = &self.succ;
        let roots = listed
            .iter()
            .copied()
            .filter(|&v| !succ[v as usize].is_empty());
        let comps = scratch.run(n, roots, |v| &succ[v as usize]);
        self.succ_nodes = listed;
        let order: Vec<Node> = comps.iter().map(|c| c[0]).collect();
        let sccs: Vec<Vec<Node>> = comps
            .iter()
            .filter(|c| c.len() > 1)
            .map(|c| c.to_vec())
            .collect();
        self.scc = scratch;
        self.scc_merged = !sccs.is_empty();
        for comp in sccs {
            self.stats.merged_in_cycles += comp.len() - 1;
            let mut r = comp[0];
            for &w in &comp[1..] {
                r = self.unite(r, w);
            }
        }
        // Tarjan emits components sinks first.
        order.into_iter().rev().map(|v| self.find(v)).collect()
    }

    /// Successor lists as representatives, without self loops or duplicates.
    /// `v` has successors: list it for the per-round passes.
    fn note_succ(&mut self, v: Node) {
        if !self.listed[v as usize] {
            self.listed[v as usize] = true;
            self.succ_nodes.push(v);
        }
    }

    fn normalize_succ(&mut self) {
        // Only listed nodes can have successors; drop those that no longer do.
        let mut nodes = std::mem::take(&mut self.succ_nodes);
        nodes.retain(|&v| {
            let keep = self.rep[v as usize] == v && !self.succ[v as usize].is_empty();
            self.listed[v as usize] = keep;
            keep
        });
        // Not sorted: their order is only where Tarjan starts, which breaks ties in the
        // topological order (the incremental passes' order: work, never answers), and
        // sorting the list at each pass was a twentieth of an `asn1_find_node` miss.
        for &v in &nodes {
            // Sorting every list every round was 8 % of a SQLite solve: only lists that grew
            // or point to a node merged away since.
            if !std::mem::take(&mut self.succ_dirty[v as usize])
                && self.succ[v as usize]
                    .iter()
                    .all(|&w| self.rep[w as usize] == w)
            {
                continue;
            }
            let mut s = std::mem::take(&mut self.succ[v as usize]);
            for w in s.iter_mut() {
                *w = self.find(*w);
            }
            s.sort_unstable();
            s.dedup();
            s.retain(|w| *w != v);
            self.succ[v as usize] = s;
        }
        nodes.append(&mut self.succ_nodes);
        self.succ_nodes = nodes;
    }

    /// Whether the work budget is spent (checked often enough to stop within a fraction of
    /// it; the solver is left inconsistent and must be dropped).
    fn out_of_budget(&mut self) -> bool {
        if self.budget.is_some_and(|b| self.stats.work > b) {
            self.over_budget = true;
        }
        self.over_budget
    }

    /// `propagate` from the changed nodes only, in the last topological order (nodes
    /// without a position last), each node's successors that grow joining the pass.
    fn propagate_changed(&mut self) {
        use std::cmp::Reverse;
        let mut heap: std::collections::BinaryHeap<Reverse<(u32, Node)>> =
            std::mem::take(&mut self.heap_scratch).into();
        heap.clear();
        let mut grown = std::mem::take(&mut self.grown_scratch);
        for i in 0..self.changed_list.len() {
            let v = self.find(self.changed_list[i]);
            if self.changed[v as usize] && !self.succ[v as usize].is_empty() {
                heap.push(Reverse((self.topo_pos[v as usize], v)));
            }
        }
        while let Some(Reverse((_, v))) = heap.pop() {
            if self.out_of_budget() {
                break;
            }
            // No node merges while propagating: v is a representative.
            self.incr_work += 1 + self.succ[v as usize].len();
            grown.clear();
            self.propagate_node(v, &mut grown);
            for &w in &grown {
                if !self.succ[w as usize].is_empty() {
                    heap.push(Reverse((self.topo_pos[w as usize], w)));
                }
            }
        }
        let over = self.over_budget;
        self.heap_scratch = heap.into_vec();
        self.grown_scratch = grown;
        if over {
            return;
        }
        self.drop_unpropagated();
    }

    /// Send representative v's pending difference, if it changed, to its successors;
    /// those that grew are pushed to `grown`.
    fn propagate_node(&mut self, v: Node, grown: &mut Vec<Node>) {
        if !self.changed[v as usize] {
            return;
        }
        self.changed[v as usize] = false;
        let delta = std::mem::take(&mut self.pdelta[v as usize]);
        if delta.is_empty() {
            return;
        }
        let succs = std::mem::take(&mut self.succ[v as usize]);
        for &w in &succs {
            let w = self.find(w);
            if w != v && self.grow(w, &delta) {
                grown.push(w);
            }
        }
        // Growing sets adds no edge: the list goes back as it was, without a copy (a
        // copy was an allocation per node propagated, a fifth of a list walk's solve).
        debug_assert!(self.succ[v as usize].is_empty());
        self.succ[v as usize] = succs;
    }

    fn propagate(&mut self, topo: &[Node]) {
        let mut grown = Vec::new();
        for &v in topo {
            if self.out_of_budget() {
                return;
            }
            let v = self.find(v);
            grown.clear();
            self.propagate_node(v, &mut grown);
        }
        self.drop_unpropagated();
    }

    /// Nodes without outgoing edges have nothing to propagate; the others stay listed.
    fn drop_unpropagated(&mut self) {
        let mut list = std::mem::take(&mut self.changed_list);
        list.retain(|&v| {
            let v = v as usize;
            if self.changed[v] && self.succ[v].is_empty() {
                self.changed[v] = false;
                self.pdelta[v] = PtsSet::new();
            }
            self.changed[v]
        });
        list.sort_unstable();
        list.dedup();
        self.changed_list = list;
    }

    /// Apply complex constraints to new facts; returns whether anything grew.
    fn process_complex(&mut self) -> bool {
        let mut grew = false;
        let mut dirty = std::mem::take(&mut self.dirty);
        dirty.sort_unstable();
        for &d in &dirty {
            self.in_dirty[d as usize] = false;
        }
        for d in dirty {
            if self.out_of_budget() {
                return grew;
            }
            let n = self.find(d);
            let delta = std::mem::take(&mut self.cdelta[n as usize]);
            if delta.is_empty() {
                continue;
            }
            // A copy (the node's list may grow or move while its constraints run), into a
            // buffer kept between rounds.
            let mut cxs = std::mem::take(&mut self.cx_scratch);
            cxs.clear();
            cxs.extend_from_slice(&self.complex[n as usize]);
            let mark = self.edge_adds;
            for cx in &cxs {
                grew |= self.apply_cx(cx, &delta);
            }
            self.cx_scratch = cxs;
            grew |= self.edge_adds != mark;
        }
        grew
    }

    /// Field locations that `size` bytes starting at `loc` overlap.
    pub fn covering(&self, loc: Node, size: u64) -> Fields {
        let c = self.canon(loc);
        let o = self.node_obj[c as usize];
        let ob = &self.objs[o as usize];
        if ob.is_code() {
            // Code is not data: reading it yields no pointer, writing it is undefined.
            // Without this, an imprecise store through a function pointer would make
            // every function a hub that points everywhere.
            return Fields::many(Vec::new());
        }
        if self.fi[o as usize] {
            return Fields::one(c);
        }
        let lid = ob.layout.unwrap();
        let l = &self.prog.layouts[lid as usize];
        let f = self.node_field[c as usize];
        let fi = &l.fields[f as usize];
        if size <= fi.size {
            return Fields::one(c);
        }
        // The same (layout, field, size) comes back for every object of the type: memoised.
        let rel = self
            .cover_memo
            .borrow_mut()
            .entry((lid, f, size))
            .or_insert_with(|| l.fields_in(fi.offset as i64, size).into())
            .clone();
        Fields::Shifted(ob.base, rel)
    }

    fn apply_cx(&mut self, cx: &Cx, delta: &PtsSet) -> bool {
        let mut grew = false;
        match *cx {
            Cx::Load { dst, size, walk } => {
                let walk = self.reads.is_some() && (walk || self.walk_forced.contains(&dst));
                for loc in delta.iter() {
                    for f in self.covering(loc, size).iter() {
                        if self.reads.is_some() {
                            self.loads.insert(f);
                            if walk {
                                self.walks.insert(f);
                            }
                        }
                        self.add_edge(f, dst);
                    }
                }
            }
            Cx::Store { src, size } => {
                for loc in delta.iter() {
                    if !self.objs[self.node_obj[loc as usize] as usize].is_writable() {
                        continue; // a store there faults: nothing flows on
                    }
                    for f in self.covering(loc, size).iter() {
                        self.add_edge(src, f);
                    }
                }
            }
            Cx::Gep { dst, gep } => {
                // Collected, then built sorted: inserting one by one into a large bitmap is a
                // binary search each (7 % of a SQLite solve).
                let mut locs = Vec::with_capacity(delta.len() as usize);
                let pending = self.pending_collapse.len();
                let spread = self.stats.spread_pointers;
                for loc in delta.iter() {
                    self.shift(loc, gep, &mut locs);
                }
                if self.stats.spread_pointers > spread && log::log_enabled!(log::Level::Trace) {
                    log::trace!("  spread by the gep into {}", self.prog.var_name(dst));
                }
                locs.sort_unstable();
                locs.dedup();
                let out = PtsSet::from_sorted(locs);
                if self.pending_collapse.len() > pending && log::log_enabled!(log::Level::Debug) {
                    log::debug!(
                        "  by the gep into {} ({} targets)",
                        self.prog.var_name(dst),
                        delta.len()
                    );
                }
                let r = self.find(dst);
                grew |= self.grow(r, &out);
            }
            Cx::Call(c) => self.bind_targets(c, delta),
            Cx::MemCopy(id) => grew |= self.apply_memcopy(id),
            Cx::EscapeClosure => grew |= self.close_escaped(delta),
        }
        grew
    }

    /// Points-to set of a node, canonicalised (field-insensitive objects as their base).
    pub fn points_to(&self, n: Node) -> RoaringBitmap {
        let p = &self.pts[self.find_ro(n) as usize];
        if p.is_disjoint_roaring(&self.noncanon) {
            return p.to_roaring();
        }
        self.canonical(&p.to_roaring())
    }

    /// Size of the canonical points-to set of a node (without building it when possible).
    pub fn points_to_len(&self, n: Node) -> u64 {
        let p = &self.pts[self.find_ro(n) as usize];
        // A set holds fields of a collapsed object only if they joined it before the
        // collapse: rebuilt then, counted as is otherwise.
        if p.is_disjoint_roaring(&self.noncanon) {
            p.len()
        } else {
            self.canonical(&p.to_roaring()).len()
        }
    }

    /// Bytes held by the points-to bitmaps: (sets, pending propagation, pending constraints), for memory
    /// diagnostics (`RUST_LOG=pspa=debug`).
    pub fn bitmap_bytes(&self) -> (usize, usize, usize) {
        let sum = |v: &Vec<PtsSet>| v.iter().map(|b| b.heap_bytes()).sum();
        (sum(&self.pts), sum(&self.pdelta), sum(&self.cdelta))
    }

    pub fn num_nodes(&self) -> usize {
        self.rep.len()
    }
}

pub use fields::Fields;

mod fields {
    /// One field (the common case) without allocating, or several.
    pub enum Fields {
        One(u32),
        Many(Vec<u32>),
        /// Fields of a layout, relative to an object's base (shared through the memo).
        Shifted(u32, std::rc::Rc<[u32]>),
    }
    impl Fields {
        pub fn one(n: u32) -> Fields {
            Fields::One(n)
        }
        pub fn many(v: Vec<u32>) -> Fields {
            Fields::Many(v)
        }
        pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
            let (a, b, base) = match self {
                Fields::One(n) => (Some(*n), &[][..], 0),
                Fields::Many(v) => (None, &v[..], 0),
                Fields::Shifted(base, v) => (None, &v[..], *base),
            };
            a.into_iter().chain(b.iter().map(move |&k| base + k))
        }
    }
}
