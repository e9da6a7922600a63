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
use crate::models::{Effect, Model};
use roaring::RoaringBitmap;
use rustc_hash::{FxHashMap, FxHashSet};

pub type Node = u32;
const NONE: u32 = u32::MAX;

/// An object as the solver sees it (the program's objects plus those added for seeding or
/// allocated by models at indirect call sites): the object and where its field nodes are.
/// Derefs to the `Object`, so `ob.label`, `ob.kind`... read through.
#[derive(Clone, Debug)]
pub struct ObjInfo {
    pub obj: Object,
    /// First field node.
    pub base: Node,
    pub nfields: u32,
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

/// What defines a single-definition variable (see `Program::single_def`). At -O0 every
/// use of a local reloads it: many variables share a key and so one set.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum MergeKey<'p> {
    Addr(ObjId, i64),
    Load(Node, u64),
    Gep(Node, &'p Gep),
}

#[derive(Clone, Debug)]
enum Cx {
    Load { dst: Node, size: u64 },
    Store { src: Node, size: u64 },
    Gep { dst: Node, gep: u32 },
    Call(CallId),
    MemCopy(u32),
    EscapeClosure,
}

struct MemCopyState {
    dst: Node,
    src: Node,
    size: Option<u64>,
    tmp: Node,
    done_d: RoaringBitmap,
    done_s: RoaringBitmap,
    /// Switched to linear (merged) mode.
    merged: bool,
}

/// Above this many (destination, source) object pairs a memcopy goes through its merge node.
const PAIRWISE_MEMCOPY: u64 = 4096;

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
    pts: Vec<RoaringBitmap>,
    /// What joined pts since the node last propagated to its successors (kept only for
    /// nodes with successors), and since its complex constraints last ran (kept only for
    /// nodes with complex constraints). Transient differences instead of copies of what
    /// was already handled: the copies were as large as the sets themselves.
    pdelta: Vec<RoaringBitmap>,
    cdelta: Vec<RoaringBitmap>,
    succ: Vec<Vec<Node>>,
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
    /// The node standing for everything that escaped into unknown code.
    pub ext: Node,
    /// Unknown code's read and write of everything escaped are in its accesses.
    ext_accesses: bool,
    escaped: Vec<bool>,
    /// Field-insensitive objects: unknown type, or collapsed after an unknown offset.
    fi: Vec<bool>,
    /// Field nodes of collapsed objects other than their base (not canonical).
    noncanon: RoaringBitmap,
    model_vars: FxHashMap<(CallId, u32), Node>,
    /// Constraint identity -> the single-definition variable that stands for it.
    merge_keys: FxHashMap<MergeKey<'p>, Node>,
    /// covering(): abstract fields a (layout, field, size) access overlaps, relative.
    cover_memo: std::cell::RefCell<FxHashMap<(crate::facts::LayoutId, u32, u64), std::rc::Rc<[u32]>>>,
    /// When on (`track_reads`): every field node whose contents flowed somewhere (the
    /// source of a load, a copy or an escape edge). The demand-driven projection fetches
    /// an object of the state only when one of its fields is here: contents that flow
    /// nowhere cannot change any answer.
    reads: Option<RoaringBitmap>,
    /// Of those, the fields a load read: where a walk goes (`p = p->next`), as opposed to a
    /// copy, which reads the fields of the objects it copies and nothing beyond them.
    loads: RoaringBitmap,
    /// Stop once this much work is done (`stats.work`); the answer is then incomplete and
    /// `over_budget` says so (a call's analysis must not cost more than it can save).
    pub budget: Option<u64>,
    pub over_budget: bool,
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
            pts: vec![RoaringBitmap::new(); prog.num_vars as usize],
            pdelta: vec![RoaringBitmap::new(); prog.num_vars as usize],
            cdelta: vec![RoaringBitmap::new(); prog.num_vars as usize],
            succ: vec![Vec::new(); prog.num_vars as usize],
            succ_dirty: vec![false; prog.num_vars as usize],
            complex: vec![Vec::new(); prog.num_vars as usize],
            edge_adds: 0,
            changed: vec![false; prog.num_vars as usize],
            changed_list: Vec::new(),
            scc: Default::default(),
            topo_pos: vec![u32::MAX; prog.num_vars as usize],
            scc_edges: 0,
            scc_rounds: 0,
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
            ext: 0,
            ext_accesses: false,
            escaped: Vec::new(),
            fi: Vec::new(),
            noncanon: RoaringBitmap::new(),
            model_vars: FxHashMap::default(),
            merge_keys: FxHashMap::default(),
            cover_memo: Default::default(),
            reads: None,
            loads: RoaringBitmap::new(),
            budget: None,
            over_budget: false,
            stats: SolverStats::default(),
        };
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
        self.pts.push(RoaringBitmap::new());
        self.pdelta.push(RoaringBitmap::new());
        self.cdelta.push(RoaringBitmap::new());
        self.succ.push(Vec::new());
        self.succ_dirty.push(false);
        self.complex.push(Vec::new());
        self.changed.push(false);
        self.listed.push(false);
        self.topo_pos.push(u32::MAX);
        self.in_dirty.push(false);
        n
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

    /// Add an object (a unique site of a seeded state, or a model allocation).
    pub fn add_object(&mut self, o: Object) -> ObjId {
        let id = self.objs.len() as ObjId;
        let nfields = o.layout.map(|l| self.prog.layouts[l as usize].abs_size()).unwrap_or(1);
        let base = self.rep.len() as Node;
        for f in 0..nfields {
            let n = self.new_node();
            self.node_obj[n as usize] = id;
            self.node_field[n as usize] = f;
        }
        self.objs.push(ObjInfo { obj: o, base, nfields });
        self.escaped.push(false);
        self.fi.push(self.objs[id as usize].layout.is_none());
        id
    }

    pub fn layout(&self, o: ObjId) -> Option<&'p Layout> {
        self.objs[o as usize].layout.map(|l| &self.prog.layouts[l as usize])
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

    /// Make object `o` field-insensitive now (a seeded state says so).
    pub fn collapse(&mut self, o: ObjId) {
        self.pending_collapse.push(o);
        self.apply_collapses();
    }

    fn add_pts(&mut self, n: Node, loc: Node) {
        let r = self.find(n);
        if self.pts[r as usize].insert(loc) {
            if !self.succ[r as usize].is_empty() {
                self.pdelta[r as usize].insert(loc);
            }
            if !self.complex[r as usize].is_empty() {
                self.cdelta[r as usize].insert(loc);
            }
            self.mark_changed(r);
        }
    }

    /// pts(r) ⊇ add, recording what is new for propagation and complex constraints.
    /// Returns whether r grew.
    fn grow(&mut self, r: Node, add: &RoaringBitmap) -> bool {
        let ru = r as usize;
        self.stats.work += add.len();
        // Most calls offer a set equal to the target's (on SQLite, 8 of the 9 billion
        // elements offered): comparing is a memcmp, the difference a merge and an allocation.
        let have = &self.pts[ru];
        if add.len() == have.len() && add == have {
            return false;
        }
        let new = if have.is_empty() { add.clone() } else { add - have };
        if new.is_empty() {
            return false;
        }
        self.pts[ru] |= &new;
        if !self.succ[ru].is_empty() {
            self.pdelta[ru] |= &new;
        }
        if !self.complex[ru].is_empty() {
            self.cdelta[ru] |= &new;
        }
        self.mark_changed(r);
        true
    }

    // ---- union-find ----------------------------------------------------------------------

    fn find(&mut self, mut n: Node) -> Node {
        let mut root = n;
        while self.rep[root as usize] != root {
            root = self.rep[root as usize];
        }
        while self.rep[n as usize] != root {
            let next = self.rep[n as usize];
            self.rep[n as usize] = root;
            n = next;
        }
        root
    }

    pub fn find_ro(&self, mut n: Node) -> Node {
        while self.rep[n as usize] != n {
            n = self.rep[n as usize];
        }
        n
    }

    fn unite(&mut self, a: Node, b: Node) -> Node {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return ra;
        }
        let (r, o) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.rep[o as usize] = r;
        let (ru, ou) = (r as usize, o as usize);
        let seen_p = self.handled_by_both(&self.pdelta, !self.succ[ru].is_empty(), !self.succ[ou].is_empty(), ru, ou);
        let seen_c = self.handled_by_both(&self.cdelta, !self.complex[ru].is_empty(), !self.complex[ou].is_empty(), ru, ou);
        let po = std::mem::take(&mut self.pts[ou]);
        self.pts[ru] |= po;
        self.pdelta[ou] = RoaringBitmap::new();
        self.cdelta[ou] = RoaringBitmap::new();
        self.pdelta[ru] = seen_p.map(|h| &self.pts[ru] - h).unwrap_or_default();
        self.cdelta[ru] = seen_c.map(|h| &self.pts[ru] - h).unwrap_or_default();
        let so = std::mem::take(&mut self.succ[o as usize]);
        self.succ[r as usize].extend(so);
        self.succ_dirty[r as usize] = true;
        self.note_succ(r);
        let co = std::mem::take(&mut self.complex[o as usize]);
        self.complex[r as usize].extend(co);
        if self.ext == o {
            self.ext = r;
        }
        self.mark_changed(r);
        r
    }

    /// Before nodes a and b merge: what the successors (or complex constraints) of both have
    /// already seen, given each node's pending differences `d`. A node without successors
    /// (constraints), `has_*` false, makes no demand; None when neither has any.
    fn handled_by_both(&self, d: &[RoaringBitmap], has_a: bool, has_b: bool, a: usize, b: usize) -> Option<RoaringBitmap> {
        let handled = |n: usize| &self.pts[n] - &d[n];
        match (has_a, has_b) {
            (true, true) => Some(handled(a) & handled(b)),
            (true, false) => Some(handled(a)),
            (false, true) => Some(handled(b)),
            (false, false) => None,
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

    // ---- functions and calls -------------------------------------------------------------

    /// Make a function's constraints part of the problem (it is reachable from an entry).
    pub fn activate(&mut self, f: FuncId) {
        if self.live[f as usize] || !self.prog.functions[f as usize].defined {
            return;
        }
        self.live[f as usize] = true;
        self.stats.live_functions += 1;
        let func = &self.prog.functions[f as usize];
        for a in &func.accesses {
            self.accesses[f as usize].push((*a, false));
        }
        if let Some((vobj, vvar)) = func.varargs {
            let base = self.objs[vobj as usize].base;
            self.add_pts(vvar, base);
        }
        self.install(&func.constraints);
        for &c in &func.calls {
            match self.calls[c as usize].callee {
                Callee::Direct(g) => self.bind(c, g),
                Callee::Indirect(v) => self.add_complex(v, Cx::Call(c)),
            }
        }
    }

    fn install(&mut self, constraints: &'p [Constraint]) {
        let single = self.prog.single_def();
        for c in constraints {
            if let Some((dst, w)) = self.merge_with(c, single) {
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
                Constraint::Load { dst, ptr, size } => self.add_complex(*ptr, Cx::Load { dst: *dst, size: *size }),
                Constraint::Store { ptr, src, size } => self.add_complex(*ptr, Cx::Store { src: *src, size: *size }),
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

    /// Before installing c: the variable its result variable is merged with instead, when
    /// that variable is defined by c alone (`Program::single_def`) and an earlier variable
    /// is defined by the same constraint over the same inputs, or c is a plain copy (then
    /// the result is its source). A first occurrence is remembered and installed as usual.
    /// A seeded variable (non-empty set) may hold more than c gives: never merged.
    fn merge_with(&mut self, c: &'p Constraint, single: &[bool]) -> Option<(Node, Node)> {
        let dst = c.dst()?;
        if !single.get(dst as usize).copied().unwrap_or(false) {
            return None;
        }
        let r = self.find(dst);
        if !self.pts[r as usize].is_empty() {
            return None;
        }
        let key = match c {
            Constraint::Copy { src, .. } => return Some((dst, *src)),
            Constraint::AddrOf { obj, offset, .. } => MergeKey::Addr(*obj, *offset),
            Constraint::Load { ptr, size, .. } => MergeKey::Load(self.find(*ptr), *size),
            Constraint::Gep { src, gep, .. } => MergeKey::Gep(self.find(*src), gep),
            _ => return None,
        };
        match self.merge_keys.entry(key) {
            std::collections::hash_map::Entry::Occupied(e) => Some((dst, *e.get())),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(dst);
                None
            }
        }
    }

    fn intern_gep(&mut self, g: Gep) -> u32 {
        self.geps.push(g);
        (self.geps.len() - 1) as u32
    }

    fn add_memcopy(&mut self, dst: Node, src: Node, size: Option<u64>) {
        let tmp = self.new_node();
        let id = self.memcopies.len() as u32;
        self.memcopies.push(MemCopyState {
            dst,
            src,
            size,
            tmp,
            done_d: RoaringBitmap::new(),
            done_s: RoaringBitmap::new(),
            merged: false,
        });
        self.add_complex(dst, Cx::MemCopy(id));
        self.add_complex(src, Cx::MemCopy(id));
    }

    fn bind(&mut self, c: CallId, g: FuncId) {
        if !self.bound.insert((c, g)) {
            return;
        }
        let call = self.calls[c as usize].clone();
        if !self.callees[call.caller as usize].contains(&g) {
            self.callees[call.caller as usize].push(g);
        }
        if matches!(call.callee, Callee::Indirect(_)) {
            self.stats.indirect_call_targets += 1;
        }
        let func = &self.prog.functions[g as usize];
        if let Some(model) = call.model.or(func.model) {
            // External functions, and user-declared allocators even when they have a body.
            self.apply_model(c, &call, model);
        } else if func.defined {
            for (i, a) in call.args.iter().enumerate() {
                let Some(a) = *a else { continue };
                match func.formals.get(i) {
                    Some(Some(f)) => self.add_edge(a, *f),
                    Some(None) => {}
                    None => {
                        if let Some((vobj, _)) = func.varargs {
                            let base = self.objs[vobj as usize].base;
                            self.add_edge(a, base);
                        }
                    }
                }
            }
            if let (Some(r), Some(gr)) = (call.ret, func.ret) {
                self.add_edge(gr, r);
            }
            self.activate(g);
        } else {
            self.apply_model(c, &call, Model::Unknown);
        }
    }

    /// Whether call c can reach defined function g. A call that passes fewer arguments than
    /// g has parameters leaves them undefined (a type-confused pointer, not a real target);
    /// binding it would merge unrelated arguments. Extra arguments are ignored by the
    /// callee in practice, so those targets stay.
    fn arity_fits(&self, c: CallId, g: FuncId) -> bool {
        let f = &self.prog.functions[g as usize];
        !f.defined || f.model.is_some() || self.calls[c as usize].args.len() >= f.formals.len()
    }

    /// Whether a call site of the program can call `g` without undefined behaviour: a
    /// pointer-carrying argument or result may not meet a formal or return value that
    /// carries none, nor the reverse (C11 6.5.2.2p9: the types are incompatible). Calls the
    /// solver makes itself (callbacks of models, unknown code) are not checked.
    fn signature_fits(&self, c: CallId, g: FuncId) -> bool {
        let f = &self.prog.functions[g as usize];
        if (c as usize) >= self.prog.calls.len() || !f.defined || f.model.is_some() {
            return true;
        }
        let call = &self.calls[c as usize];
        let Some(arg_ptr) = &call.arg_ptr else { return true };
        // Formals are Some exactly when their type can carry a pointer; so is a call's result.
        let args_fit = f.formals.iter().zip(arg_ptr).all(|(fo, &a)| fo.is_some() == a);
        let ret_fits = call.ret.is_none() || f.ret.is_some();
        args_fit && ret_fits
    }

    fn model_var(&mut self, c: CallId, k: u32) -> Node {
        if let Some(&n) = self.model_vars.get(&(c, k)) {
            return n;
        }
        let n = self.new_node();
        self.model_vars.insert((c, k), n);
        n
    }

    /// The object a model allocates at call site c (made lazily for synthetic calls).
    fn site_object(&mut self, c: CallId, call: &CallSite) -> ObjId {
        if let Some(h) = call.heap {
            return h;
        }
        let caller = &self.prog.functions.get(call.caller as usize).map(|f| f.name.as_str()).unwrap_or("<external>");
        let label = format!("heap:{}:{}", caller, call.line);
        let o = self.add_object(Object { label, kind: ObjKind::Heap, layout: None, owner: None, func: None, readonly: false });
        self.calls[c as usize].heap = Some(o);
        o
    }

    fn apply_model(&mut self, c: CallId, call: &CallSite, model: Model) {
        let caller = call.caller as usize;
        let arg = |i: usize| call.args.get(i).copied().flatten();
        let effects = match model {
            Model::Known(e) => e,
            Model::Unknown => {
                // Conservative policy (see models.rs): arguments escape, the result may be
                // anything escaped or a fresh object, and the caller's mod/ref covers it all.
                let ext = self.ext;
                for a in call.args.iter().flatten() {
                    self.add_edge(*a, ext);
                }
                let h = self.site_object(c, call);
                let hb = self.objs[h as usize].base;
                self.add_pts(ext, hb);
                if let Some(r) = call.ret {
                    self.add_edge(ext, r);
                }
                let x = self.prog.functions.len() as FuncId;
                if !self.callees[caller].contains(&x) {
                    self.callees[caller].push(x);
                }
                // Once, and whatever else unknown code has: models of escaped library
                // functions it calls add their accesses there too (an escaped `strlen`
                // handled first once made unknown code read-only, which was unsound).
                if !self.ext_accesses {
                    self.ext_accesses = true;
                    self.accesses[x as usize].push((Access { ptr: ext, size: None, write: true }, false));
                    self.accesses[x as usize].push((Access { ptr: ext, size: None, write: false }, false));
                }
                return;
            }
        };
        for (k, e) in effects.iter().enumerate() {
            match *e {
                Effect::Alloc | Effect::RetStatic => {
                    if let Some(r) = call.ret {
                        let h = self.site_object(c, call);
                        let hb = self.objs[h as usize].base;
                        self.add_pts(r, hb);
                    }
                }
                Effect::Realloc(i) => {
                    if let Some(r) = call.ret {
                        let h = self.site_object(c, call);
                        let hb = self.objs[h as usize].base;
                        self.add_pts(r, hb);
                        if let Some(a) = arg(i) {
                            self.add_memcopy(r, a, None);
                        }
                    }
                }
                Effect::ModRet => {
                    if let Some(r) = call.ret {
                        self.accesses[caller].push((Access { ptr: r, size: None, write: true }, false));
                    }
                }
                Effect::RetArg(i) => {
                    if let (Some(r), Some(a)) = (call.ret, arg(i)) {
                        self.add_edge(a, r);
                    }
                }
                Effect::RetInto(i) => {
                    if let (Some(r), Some(a)) = (call.ret, arg(i)) {
                        let g = self.intern_gep(Gep::unknown());
                        self.add_complex(a, Cx::Gep { dst: r, gep: g });
                    }
                }
                Effect::Mod(i) | Effect::Ref(i) | Effect::ModDeep(i) | Effect::RefDeep(i) => {
                    if let Some(a) = arg(i) {
                        let write = matches!(e, Effect::Mod(_) | Effect::ModDeep(_));
                        let deep = matches!(e, Effect::ModDeep(_) | Effect::RefDeep(_));
                        self.accesses[caller].push((Access { ptr: a, size: None, write }, deep));
                    }
                }
                Effect::ModFrom(i) | Effect::RefFrom(i) => {
                    let write = matches!(e, Effect::ModFrom(_));
                    for a in call.args.iter().skip(i).flatten() {
                        self.accesses[caller].push((Access { ptr: *a, size: None, write }, false));
                    }
                }
                Effect::Copy(d, s) => {
                    if let (Some(d), Some(s)) = (arg(d), arg(s)) {
                        self.add_memcopy(d, s, None);
                    }
                }
                Effect::StoreInto { ptr, into } => {
                    if let (Some(p), Some(a)) = (arg(ptr), arg(into)) {
                        let t = self.model_var(c, k as u32);
                        let g = self.intern_gep(Gep::unknown());
                        self.add_complex(a, Cx::Gep { dst: t, gep: g });
                        self.add_complex(p, Cx::Store { src: t, size: 8 });
                    }
                }
                Effect::StoreAlloc(i) => {
                    if let Some(p) = arg(i) {
                        let t = self.model_var(c, k as u32);
                        let h = self.site_object(c, call);
                        let hb = self.objs[h as usize].base;
                        self.add_pts(t, hb);
                        self.add_complex(p, Cx::Store { src: t, size: 8 });
                    }
                }
                Effect::Callback { func, args } => {
                    if let Some(fp) = arg(func) {
                        let cb = CallSite {
                            caller: call.caller,
                            callee: Callee::Indirect(fp),
                            args: args.iter().map(|&i| arg(i)).collect(),
                            ret: None,
                            line: call.line,
                            heap: None,
                            arg_ptr: None,
                            model: None,
                        };
                        self.calls.push(cb);
                        let id = (self.calls.len() - 1) as CallId;
                        self.add_complex(fp, Cx::Call(id));
                    }
                }
            }
        }
    }

    // ---- solving ---------------------------------------------------------------------------

    /// Solve from the current seeds, over the functions reachable from `entries`.
    pub fn solve(&mut self, entries: &[FuncId]) {
        for &f in entries {
            self.activate(f);
        }
        loop {
            self.stats.rounds += 1;
            // Cycle detection and a full topological pass cost the copy graph's size. A
            // round that added few edges since the last one (a walk down a list adds a
            // couple a round, for hundreds of rounds) propagates only from the nodes that
            // changed, in the last order: cycles found later are merged later, which
            // costs time, never answers.
            let grown = self.edge_adds - self.scc_edges;
            if self.stats.rounds == 1 || self.scc_rounds >= 8 || grown > (self.scc_edges / 8).max(256) {
                let topo = self.collapse_cycles();
                for (i, &v) in topo.iter().enumerate() {
                    self.topo_pos[v as usize] = i as u32;
                }
                self.scc_edges = self.edge_adds;
                self.scc_rounds = 0;
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
        self.canonicalize();
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
                self.objs[self.node_obj[n as usize] as usize].label.clone()
            };
            let sample: Vec<String> =
                self.pts[n as usize].iter().take(6).map(|l| self.objs[self.node_obj[l as usize] as usize].label.clone()).collect();
            log::trace!("  {len:6} {name} -> {sample:?}");
        }
    }

    /// Tarjan over the copy graph: merge strongly connected nodes, return the
    /// representatives with edges in topological order.
    fn collapse_cycles(&mut self) -> Vec<Node> {
        let n = self.rep.len();
        self.normalize_succ();
        let listed = self.succ_nodes.clone();
        let roots = listed.into_iter().filter(|&v| self.rep[v as usize] == v && !self.succ[v as usize].is_empty());
        let mut scratch = std::mem::take(&mut self.scc);
        let succ = &self.succ;
        let comps = scratch.run(n, roots, |v| &succ[v as usize]);
        let order: Vec<Node> = comps.iter().map(|c| c[0]).collect();
        let sccs: Vec<Vec<Node>> = comps.iter().filter(|c| c.len() > 1).map(|c| c.to_vec()).collect();
        self.scc = scratch;
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
        nodes.sort_unstable();
        for &v in &nodes {
            // Sorting every list every round was 8 % of a SQLite solve: only lists that grew
            // or point to a node merged away since.
            if !std::mem::take(&mut self.succ_dirty[v as usize]) && self.succ[v as usize].iter().all(|&w| self.rep[w as usize] == w) {
                continue;
            }
            let mut s = std::mem::take(&mut self.succ[v as usize]);
            for w in s.iter_mut() {
                *w = self.find(*w);
            }
            s.sort_unstable();
            s.dedup();
            s.retain(|&w| w != v);
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
        let mut heap: std::collections::BinaryHeap<Reverse<(u32, Node)>> = std::collections::BinaryHeap::new();
        let mut grown = Vec::new();
        for i in 0..self.changed_list.len() {
            let v = self.find(self.changed_list[i]);
            if self.changed[v as usize] && !self.succ[v as usize].is_empty() {
                heap.push(Reverse((self.topo_pos[v as usize], v)));
            }
        }
        while let Some(Reverse((_, v))) = heap.pop() {
            if self.out_of_budget() {
                return;
            }
            // No node merges while propagating: v is a representative.
            grown.clear();
            self.propagate_node(v, &mut grown);
            for &w in &grown {
                if !self.succ[w as usize].is_empty() {
                    heap.push(Reverse((self.topo_pos[w as usize], w)));
                }
            }
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
        self.succ[v as usize].extend(succs);
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
                self.pdelta[v] = RoaringBitmap::new();
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
            let cxs = self.complex[n as usize].clone();
            let mark = self.edge_adds;
            for cx in &cxs {
                grew |= self.apply_cx(cx, &delta);
            }
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
        let rel = self.cover_memo.borrow_mut().entry((lid, f, size)).or_insert_with(|| l.fields_in(fi.offset as i64, size).into()).clone();
        Fields::Shifted(ob.base, rel)
    }

    fn apply_cx(&mut self, cx: &Cx, delta: &RoaringBitmap) -> bool {
        let mut grew = false;
        match *cx {
            Cx::Load { dst, size } => {
                for loc in delta.iter() {
                    for f in self.covering(loc, size).iter() {
                        if self.reads.is_some() {
                            self.loads.insert(f);
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
                let out = RoaringBitmap::from_sorted_iter(locs).expect("sorted");
                if self.pending_collapse.len() > pending && log::log_enabled!(log::Level::Debug) {
                    log::debug!("  by the gep into {} ({} targets)", self.prog.var_name(dst), delta.len());
                }
                let r = self.find(dst);
                grew |= self.grow(r, &out);
            }
            Cx::Call(c) => {
                for loc in delta.iter() {
                    let o = self.node_obj[loc as usize];
                    if let Some(g) = self.objs[o as usize].func {
                        if !self.arity_fits(c, g) {
                            self.stats.arity_mismatches += 1;
                        } else if !self.signature_fits(c, g) {
                            self.stats.signature_mismatches += 1;
                        } else {
                            self.bind(c, g);
                        }
                    }
                }
            }
            Cx::MemCopy(id) => grew |= self.apply_memcopy(id),
            Cx::EscapeClosure => {
                for loc in delta.iter() {
                    let o = self.node_obj[loc as usize];
                    if self.escaped[o as usize] {
                        continue;
                    }
                    self.escaped[o as usize] = true;
                    let ext = self.ext;
                    let (base, nf) = (self.objs[o as usize].base, self.objs[o as usize].nfields);
                    let nf = if self.objs[o as usize].is_code() { 0 } else { nf };
                    let ro = !self.objs[o as usize].is_writable();
                    for k in 0..nf {
                        self.add_pts(ext, base + k);
                        self.add_edge(base + k, ext);
                        if !ro {
                            self.add_edge(ext, base + k);
                        }
                    }
                    if let Some(g) = self.objs[o as usize].func {
                        // Unknown code may call an escaped function with escaped arguments.
                        let nargs = self.prog.functions[g as usize].formals.len().max(1);
                        let x = self.prog.functions.len() as FuncId;
                        let ext = self.ext;
                        self.calls.push(CallSite {
                            caller: x,
                            callee: Callee::Direct(g),
                            args: vec![Some(ext); nargs],
                            ret: Some(ext),
                            line: 0,
                            heap: None,
                            arg_ptr: None,
                            model: None,
                        });
                        let id = (self.calls.len() - 1) as CallId;
                        self.bind(id, g);
                    }
                    grew = true;
                }
            }
        }
        grew
    }

    fn apply_memcopy(&mut self, id: u32) -> bool {
        let (dst, src, tmp, size) = {
            let m = &self.memcopies[id as usize];
            (m.dst, m.src, m.tmp, m.size)
        };
        let d_all = self.points_to(dst);
        let s_all = self.points_to(src);
        let new_d = &d_all - &self.memcopies[id as usize].done_d;
        let new_s = &s_all - &self.memcopies[id as usize].done_s;
        if new_d.is_empty() && new_s.is_empty() {
            return false;
        }
        let old_d = self.memcopies[id as usize].done_d.clone();
        let mark = self.edge_adds;
        let pairs = new_d.len() * s_all.len() + old_d.len() * new_s.len();
        if pairs <= PAIRWISE_MEMCOPY || self.memcopies[id as usize].merged {
            if !self.memcopies[id as usize].merged {
                for (ds, ss) in [(&new_d, &s_all), (&old_d, &new_s)] {
                    for ld in ds.iter() {
                        for ls in ss.iter() {
                            self.copy_object_contents(ld, ls, tmp, size);
                        }
                    }
                }
            } else {
                self.merged_memcopy(tmp, size, &new_d, &new_s);
            }
        } else {
            // Many objects on both sides: every source flows to every destination through
            // the merge node, linear instead of quadratic (a superset of the pairwise
            // edges: sound, and the same for differently laid out pairs).
            self.memcopies[id as usize].merged = true;
            self.merged_memcopy(tmp, size, &d_all, &s_all);
        }
        let m = &mut self.memcopies[id as usize];
        m.done_d = d_all;
        m.done_s = s_all;
        self.edge_adds != mark
    }

    /// Merged mode of a memcopy: sources' fields -> tmp -> destinations' fields.
    fn merged_memcopy(&mut self, tmp: Node, size: Option<u64>, ds: &RoaringBitmap, ss: &RoaringBitmap) {
        for ls in ss.iter() {
            for f in self.copied_fields(ls, size) {
                self.add_edge(f, tmp);
            }
        }
        for ld in ds.iter() {
            if !self.objs[self.node_obj[ld as usize] as usize].is_writable() {
                continue;
            }
            for f in self.copied_fields(ld, size) {
                self.add_edge(tmp, f);
            }
        }
    }

    /// The canonical fields a copy of `size` bytes at `l` touches (the whole object when
    /// unknown); none for code.
    fn copied_fields(&self, l: Node, size: Option<u64>) -> Vec<Node> {
        let o = self.node_obj[l as usize];
        if self.objs[o as usize].is_code() {
            return Vec::new();
        }
        match size {
            Some(n) => self.covering(l, n).iter().map(|f| self.canon(f)).collect(),
            None => self.field_range(o).collect(),
        }
    }

    /// `size` bytes (whole objects when unknown) at ls flow to ld: field by field when both
    /// have the same layout and position, else through one merge node (sound, linear).
    fn copy_object_contents(&mut self, ld: Node, ls: Node, tmp: Node, size: Option<u64>) {
        let (od, os) = (self.node_obj[ld as usize], self.node_obj[ls as usize]);
        if !self.objs[od as usize].is_writable() || self.objs[os as usize].is_code() {
            return; // code is not data; constant memory is never written
        }
        let (bd, bs) = (self.objs[od as usize].base, self.objs[os as usize].base);
        let same = self.objs[od as usize].layout.is_some()
            && self.objs[od as usize].layout == self.objs[os as usize].layout
            && ld - bd == ls - bs
            && !self.fi[od as usize]
            && !self.fi[os as usize];
        let src_fields = self.copied_fields(ls, size);
        if same {
            for f in src_fields {
                self.add_edge(f, bd + (f - bs));
            }
        } else {
            for f in src_fields {
                self.add_edge(f, tmp);
            }
            for f in self.copied_fields(ld, size) {
                self.add_edge(tmp, f);
            }
        }
    }

    /// Move location `loc` by `gep`, adding the result(s) to `out`.
    fn shift(&mut self, loc: Node, gep: u32, out: &mut Vec<Node>) {
        let c = self.canon(loc);
        let o = self.node_obj[c as usize];
        let ob = &self.objs[o as usize];
        let base = ob.base;
        if self.fi[o as usize] || ob.nfields == 1 {
            out.push(base); // one field: nothing to lose, stays `.0`
            return;
        }
        let l = self.layout(o).unwrap();
        let g = &self.geps[gep as usize];
        let f = self.node_field[c as usize];
        let b = l.fields[f as usize].offset as i64 + g.offset;
        let f2 = l.field_at(b);
        if !g.strides.iter().all(|&s| l.stride_keeps_field(f2, s)) {
            // Accessed at an unknown offset: field-insensitive from now on (paper 4.2).
            if log::log_enabled!(log::Level::Debug) {
                log::debug!(
                    "collapse {}: field {} (byte {}) moved by {:+} bytes and strides {:?} ({})",
                    ob.label, f, l.fields[f as usize].offset, g.offset, g.strides, l.name
                );
            }
            self.pending_collapse.push(o);
            out.push(base);
        } else if l.is_field_start(b) {
            out.push(base + f2);
        } else {
            // A constant move into the middle of a field: a byte walk (`p++` in a loop) or
            // a pointer of another type. The pointer may reach any field; the object keeps
            // its fields for every other pointer.
            self.stats.spread_pointers += 1;
            log::trace!("spread {}: field {} (byte {}) moved by {:+} bytes ({})", ob.label, f, l.fields[f as usize].offset, g.offset, l.name);
            out.extend(base..base + ob.nfields);
        }
    }

    fn apply_collapses(&mut self) {
        let pending = std::mem::take(&mut self.pending_collapse);
        for o in pending {
            if self.fi[o as usize] {
                continue;
            }
            self.fi[o as usize] = true;
            self.stats.collapsed_objects += 1;
            log::debug!("field-insensitive from now on: {}", self.objs[o as usize].label);
            let ob = &self.objs[o as usize];
            let (base, nf) = (ob.base, ob.nfields);
            if nf > 1 {
                self.noncanon.insert_range(base + 1..base + nf);
            }
            // Merging the holders is enough: edges already added to or from any field now
            // reach the merged node, and later reads canonicalise to the base.
            for k in 1..nf {
                self.unite(base, base + k);
            }
        }
    }

    /// Replace the fields of collapsed objects by their base in every set, once the solve
    /// is over: every later query (mod/ref, statistics, labels) then finds the sets
    /// canonical instead of rebuilding them.
    fn canonicalize(&mut self) {
        if self.noncanon.is_empty() {
            return;
        }
        for n in 0..self.rep.len() {
            if self.rep[n] as usize == n && !self.pts[n].is_disjoint(&self.noncanon) {
                self.pts[n] = self.canonical(&self.pts[n]);
            }
        }
    }

    /// A set with the fields of collapsed objects replaced by their bases.
    fn canonical(&self, p: &RoaringBitmap) -> RoaringBitmap {
        let mut c = p - &self.noncanon;
        let mut bases: Vec<Node> = (p & &self.noncanon).iter().map(|l| self.canon(l)).collect();
        bases.sort_unstable();
        bases.dedup();
        c |= RoaringBitmap::from_sorted_iter(bases).expect("sorted");
        c
    }

    /// Points-to set of a node, canonicalised (field-insensitive objects as their base).
    pub fn points_to(&self, n: Node) -> RoaringBitmap {
        let p = &self.pts[self.find_ro(n) as usize];
        if p.is_disjoint(&self.noncanon) {
            return p.clone();
        }
        self.canonical(p)
    }

    /// Size of the canonical points-to set of a node (without building it when possible).
    pub fn points_to_len(&self, n: Node) -> u64 {
        let p = &self.pts[self.find_ro(n) as usize];
        // After a solve the sets are canonical (`canonicalize`): the rebuild is for sets read
        // before that.
        if p.is_disjoint(&self.noncanon) {
            p.len()
        } else {
            self.canonical(p).len()
        }
    }

    /// Bytes held by the points-to bitmaps: (sets, pending propagation, pending constraints), for memory
    /// diagnostics (`RUST_LOG=pspa=debug`).
    pub fn bitmap_bytes(&self) -> (usize, usize, usize) {
        let sum = |v: &Vec<RoaringBitmap>| v.iter().map(|b| b.serialized_size()).sum();
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
