//! A naive reference solver: the semantics of the optimised solver (`solver.rs`) and of
//! mod/ref (`modref.rs`) as a plain chaotic-iteration fixpoint, for tests to compare against
//! (`tests/reference.rs`), as polonius keeps its naive "compare" mode.
//!
//! Nothing here is clever: points-to sets are `BTreeSet`s of `(object, field)` locations,
//! every rule is re-applied to the *whole* current state in every sweep, and sweeps repeat
//! until nothing changes. There is no union-find, no cycle elimination, no difference
//! propagation, no offline merging of variables and no merged memcopy mode. Each rule says
//! which function of the optimised solver it mirrors.
//!
//! Field-insensitivity: an object without a layout is field-insensitive from the start, and
//! one that a gep moves by an offset its layout cannot follow is *collapsed* (`Solver::shift`,
//! `Solver::apply_collapses`). A collapsed object has one location, field 0, standing for all
//! of its fields: after a sweep that collapsed something, every set is rewritten with the
//! canonical location (`Solver::canon`), and the contents of the fields are merged, which is
//! what uniting the field nodes does in the solver.
//!
//! Memcopy: the solver copies pair by pair through one merge node per memcopy
//! (`copy_object_contents`), or, above `PAIRWISE_MEMCOPY` pairs, everything through the merge
//! node (`merged_memcopy`), and it does not redo a pair whose objects collapse after the pair
//! was copied. The reference evaluates every pair on the final state: `MemCopyMode::Pairwise`
//! is the solver's pairwise mode (with the shared merge node), `MemCopyMode::Direct` copies
//! each pair without a merge node, a lower bound of every order the solver may take.
//! `Reference::memcopy_exact` tells when the final state leaves the solver no choice.
//!
//! Unknown code reads and writes everything escaped as soon as some call reaches an unknown
//! function (the policy of models.rs). The solver once lost those accesses when a model of
//! an escaped function called by unknown code came first; this comparison found it (see
//! `unknown_code_writes_what_escaped_even_after_strlen_escaped` in tests/reference.rs).
//!
//! Not covered: seeding from a state (`seed_*`, `add_object`, `collapse`, `with_init`'s
//! filter), the work budget and read tracking. The reference starts from the global
//! initialisers, as `Solver::new` does.

use crate::facts::*;
use crate::layout::Layout;
use crate::models::{Effect, Model};
use std::collections::{BTreeMap, BTreeSet};

/// A location: an object and one of its abstract fields (field 0 when field-insensitive).
pub type Loc = (ObjId, u32);
pub type LocSet = BTreeSet<Loc>;

/// A points-to variable of the reference. The solver's nodes that are not program variables
/// get names here instead of node numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Var {
    /// A variable of the program.
    Prog(VarId),
    /// Everything escaped into unknown code (`Solver::ext`).
    Ext,
    /// The variable a model effect stores through (`Solver::model_var`, per call and effect).
    Model { call: usize, effect: usize },
    /// The merge node of memcopy instance `i` (`MemCopyState::tmp`).
    Tmp(usize),
}

/// How a memcopy copies a pair of objects whose layouts or positions differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemCopyMode {
    /// Through the memcopy's merge node, as `Solver::copy_object_contents` does.
    Pairwise,
    /// Straight from the source's fields to the destination's: a lower bound of the solver.
    Direct,
}

/// Where a call of the reference comes from (program calls keep their `CallId` as index).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum CallOrigin {
    Program(CallId),
    /// A model's `Callback` effect, made when call `parent` binds `target` (`apply_model`).
    Callback {
        parent: usize,
        target: FuncId,
        effect: usize,
    },
    /// Unknown code calling escaped function object `obj` (`Cx::EscapeClosure`).
    Escape {
        obj: ObjId,
    },
    /// A function whose body its model replaces, applying the model to its own formals
    /// (`Solver::apply_body_model`).
    Body {
        func: FuncId,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RCallee {
    Direct(FuncId),
    Indirect(Var),
}

/// A call site (`facts::CallSite` over reference variables).
#[derive(Clone, Debug)]
pub struct RCall {
    pub origin: CallOrigin,
    pub caller: FuncId,
    pub callee: RCallee,
    pub args: Vec<Option<Var>>,
    pub ret: Option<Var>,
    pub line: u32,
    /// The object models allocate at this call (made on first use, `Solver::site_object`).
    pub heap: Option<ObjId>,
    pub arg_ptr: Option<Vec<bool>>,
    pub model: Option<Model>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum MemCopyOrigin {
    Constraint {
        func: Option<FuncId>,
        index: usize,
    },
    Model {
        call: usize,
        target: FuncId,
        effect: usize,
    },
}

/// One memcopy: contents of the objects of `src` flow to those of `dst`.
#[derive(Clone, Debug)]
pub struct MemCopyInst {
    pub dst: Var,
    pub src: Var,
    pub size: Option<u64>,
}

/// Why the solver's memcopies may differ from the pairwise reference (`memcopy_exact`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemCopyChoice {
    /// Between `MemCopyMode::Direct` and `MemCopyMode::Pairwise`.
    Collapse(String),
    /// At least `MemCopyMode::Direct`.
    Merged(String),
}

/// A memory access for mod/ref (`facts::Access` plus the deep flag of `Solver::accesses`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RAccess {
    pub ptr: Var,
    pub size: Option<u64>,
    pub write: bool,
    pub deep: bool,
    /// A freeing model's argument (`Effect::Free`): in the may-free set too.
    pub free: bool,
}

/// Mod/ref sets by function (the last one is unknown code), as `modref::ModRef`.
#[derive(Clone, Debug, Default)]
pub struct RefModRef {
    pub modset: Vec<LocSet>,
    pub refset: Vec<LocSet>,
    pub freeset: Vec<LocSet>,
    pub walked: BTreeSet<ObjId>,
}

pub struct Reference<'p> {
    pub prog: &'p Program,
    pub mode: MemCopyMode,
    /// The program's objects, then those made for model allocations at call sites.
    pub objects: Vec<Object>,
    /// Object made by `site_object` -> its call.
    pub site_call: BTreeMap<ObjId, usize>,
    /// The program's calls (same indices), then synthetic ones.
    pub calls: Vec<RCall>,
    call_index: BTreeMap<CallOrigin, usize>,
    pub live: BTreeSet<FuncId>,
    /// The entries whose body a model replaces: they apply the whole model to their
    /// formals (`Solver::solve`).
    pub body_entries: BTreeSet<FuncId>,
    pub bound: BTreeSet<(usize, FuncId)>,
    /// Objects with a layout made field-insensitive by a gep.
    pub collapsed: BTreeSet<ObjId>,
    /// The collapsed objects the sets were last rewritten for.
    canonical_for: BTreeSet<ObjId>,
    pub escaped: BTreeSet<ObjId>,
    pub pts: BTreeMap<Var, LocSet>,
    /// Contents of (canonical) locations.
    pub mem: BTreeMap<Loc, LocSet>,
    /// Call graph; index `functions.len()` is unknown code.
    pub callees: Vec<BTreeSet<FuncId>>,
    pub accesses: Vec<BTreeSet<RAccess>>,
    pub memcopies: Vec<MemCopyInst>,
    memcopy_index: BTreeMap<MemCopyOrigin, usize>,
    pub sweeps: usize,
    changed: bool,
    /// The `unknown` object of input addresses (`Solver::unknown_object`), once made.
    pub unknown_input: Option<ObjId>,
}

impl<'p> Reference<'p> {
    /// Solve `prog` from its global initialisers over what `entries` reach (`Solver::new`
    /// then `Solver::solve`).
    pub fn solve(prog: &'p Program, entries: &[FuncId], mode: MemCopyMode) -> Reference<'p> {
        let nf = prog.functions.len();
        let calls = prog
            .calls
            .iter()
            .enumerate()
            .map(|(i, c)| RCall {
                origin: CallOrigin::Program(i as CallId),
                caller: c.caller,
                callee: match c.callee {
                    Callee::Direct(g) => RCallee::Direct(g),
                    Callee::Indirect(v) => RCallee::Indirect(Var::Prog(v)),
                },
                args: c.args.iter().map(|a| a.map(Var::Prog)).collect(),
                ret: c.ret.map(Var::Prog),
                line: c.line,
                heap: c.heap,
                arg_ptr: c.arg_ptr.clone(),
                model: c.model,
            })
            .collect();
        let mut r = Reference {
            prog,
            mode,
            objects: prog.objects.clone(),
            site_call: BTreeMap::new(),
            calls,
            call_index: BTreeMap::new(),
            live: BTreeSet::new(),
            body_entries: BTreeSet::new(),
            bound: BTreeSet::new(),
            collapsed: BTreeSet::new(),
            canonical_for: BTreeSet::new(),
            escaped: BTreeSet::new(),
            pts: BTreeMap::new(),
            mem: BTreeMap::new(),
            callees: vec![BTreeSet::new(); nf + 1],
            accesses: vec![BTreeSet::new(); nf + 1],
            memcopies: Vec::new(),
            memcopy_index: BTreeMap::new(),
            sweeps: 0,
            changed: false,
            unknown_input: None,
        };
        // Solver::with_init: the initialisers seed memory.
        for &(o, off, t, toff) in &prog.init {
            let (h, l) = (r.loc(o, off), r.loc(t, toff));
            r.mem.entry(h).or_default().insert(l);
        }
        // Solver::solve -> activate: only defined functions become live.
        for &f in entries {
            if prog.functions[f as usize].defined {
                r.live.insert(f);
                if prog.functions[f as usize].body_replaced() {
                    r.body_entries.insert(f);
                }
            }
        }
        loop {
            r.changed = false;
            r.sweeps += 1;
            r.sweep();
            r.canonicalize();
            if !r.changed {
                break;
            }
        }
        r
    }

    fn x(&self) -> FuncId {
        self.prog.functions.len() as FuncId
    }

    // ---- locations (Solver::layout, is_fi, loc, canon, field_range, covering) ----------

    pub fn layout(&self, o: ObjId) -> Option<&'p Layout> {
        self.objects[o as usize]
            .layout
            .map(|l| &self.prog.layouts[l as usize])
    }

    /// Solver::is_fi: no layout, or collapsed.
    pub fn is_fi(&self, o: ObjId) -> bool {
        self.objects[o as usize].layout.is_none() || self.collapsed.contains(&o)
    }

    /// ObjInfo::nfields.
    pub fn nfields(&self, o: ObjId) -> u32 {
        self.layout(o).map(|l| l.abs_size()).unwrap_or(1)
    }

    /// Solver::canon.
    pub fn canon(&self, (o, f): Loc) -> Loc {
        if self.is_fi(o) {
            (o, 0)
        } else {
            (o, f)
        }
    }

    /// Solver::loc: byte `off` of object `o`.
    pub fn loc(&self, o: ObjId, off: i64) -> Loc {
        match self.layout(o) {
            Some(l) if !self.is_fi(o) => (o, l.field_at(off)),
            _ => (o, 0),
        }
    }

    /// Solver::field_range: the canonical locations of `o`.
    pub fn field_range(&self, o: ObjId) -> Vec<Loc> {
        let n = if self.is_fi(o) { 1 } else { self.nfields(o) };
        (0..n).map(|f| (o, f)).collect()
    }

    /// Solver::covering: the locations `size` bytes from `l` overlap; none for code.
    pub fn covering(&self, l: Loc, size: u64) -> Vec<Loc> {
        let (o, f) = self.canon(l);
        if self.objects[o as usize].is_code() {
            return Vec::new();
        }
        if self.is_fi(o) {
            return vec![(o, 0)];
        }
        let lay = self
            .layout(o)
            .expect("field-sensitive objects have a layout");
        let fi = &lay.fields[f as usize];
        if size <= fi.size {
            return vec![(o, f)];
        }
        lay.fields_in(fi.offset as i64, size)
            .into_iter()
            .map(|k| (o, k))
            .collect()
    }

    /// Solver::copied_fields: what a copy of `size` bytes (whole object if None) at `l`
    /// touches; none for code.
    fn copied_fields(&self, l: Loc, size: Option<u64>) -> Vec<Loc> {
        if self.objects[l.0 as usize].is_code() {
            return Vec::new();
        }
        match size {
            Some(n) => self
                .covering(l, n)
                .into_iter()
                .map(|k| self.canon(k))
                .collect(),
            None => self.field_range(l.0),
        }
    }

    /// Solver::shift: `l` moved by `g`. Collapses the object when the move leaves its field
    /// at an unknown offset; a constant move into the middle of a field spreads to every
    /// field.
    fn shift(&mut self, l: Loc, g: &Gep) -> Vec<Loc> {
        let (o, f) = self.canon(l);
        if self.is_fi(o) || self.nfields(o) == 1 {
            return vec![(o, 0)];
        }
        let lay = self
            .layout(o)
            .expect("field-sensitive objects have a layout");
        let b = lay.fields[f as usize].offset as i64 + g.offset;
        let f2 = lay.field_at(b);
        if !g.strides.iter().all(|&s| lay.stride_keeps_field(f2, s)) {
            if self.collapsed.insert(o) {
                self.changed = true;
            }
            vec![(o, 0)]
        } else if lay.is_field_start(b) {
            vec![(o, f2)]
        } else {
            (0..self.nfields(o)).map(|k| (o, k)).collect()
        }
    }

    /// Solver::apply_collapses + canonicalize: rewrite every set and merge the contents of
    /// the fields of newly collapsed objects into their field 0.
    fn canonicalize(&mut self) {
        if self.collapsed == self.canonical_for {
            return;
        }
        self.canonical_for = self.collapsed.clone();
        self.changed = true;
        let canon_set =
            |r: &Self, s: &LocSet| -> LocSet { s.iter().map(|&l| r.canon(l)).collect() };
        let pts = std::mem::take(&mut self.pts);
        self.pts = pts.iter().map(|(v, s)| (*v, canon_set(self, s))).collect();
        let mem = std::mem::take(&mut self.mem);
        for (l, s) in &mem {
            let k = self.canon(*l);
            let s = canon_set(self, s);
            self.mem.entry(k).or_default().extend(s);
        }
    }

    // ---- set growth ----------------------------------------------------------------------

    pub fn points_to(&self, v: Var) -> LocSet {
        self.pts.get(&v).cloned().unwrap_or_default()
    }

    /// Contents of location `l` (canonicalised).
    pub fn contents(&self, l: Loc) -> LocSet {
        self.mem.get(&self.canon(l)).cloned().unwrap_or_default()
    }

    fn add_pts(&mut self, v: Var, l: Loc) {
        let l = self.canon(l);
        if self.pts.entry(v).or_default().insert(l) {
            self.changed = true;
        }
    }

    fn add_pts_all(&mut self, v: Var, s: LocSet) {
        for l in s {
            self.add_pts(v, l);
        }
    }

    fn add_mem_all(&mut self, at: Loc, s: LocSet) {
        let at = self.canon(at);
        for l in s {
            let l = self.canon(l);
            if self.mem.entry(at).or_default().insert(l) {
                self.changed = true;
            }
        }
    }

    fn add_access(&mut self, f: FuncId, a: RAccess) {
        if self.accesses[f as usize].insert(a) {
            self.changed = true;
        }
    }

    // ---- rules -----------------------------------------------------------------------------

    /// One pass over every rule, each against the whole current state.
    fn sweep(&mut self) {
        let prog = self.prog;
        // Solver::with_init installs the constant expressions' constraints: always active.
        for (i, c) in prog.init_constraints.iter().enumerate() {
            self.constraint(None, i, c);
        }
        // Solver::activate, for every live function.
        for f in self.live.clone() {
            let func = &prog.functions[f as usize];
            if func.body_replaced() {
                // Solver::activate -> apply_body_model: the model on the formals, not the
                // body.
                self.body_model(f);
                continue;
            }
            for a in &func.accesses {
                self.add_access(
                    f,
                    RAccess {
                        ptr: Var::Prog(a.ptr),
                        size: a.size,
                        write: a.write,
                        deep: false,
                        free: false,
                    },
                );
            }
            if let Some((vobj, vvar)) = func.varargs {
                self.add_pts(Var::Prog(vvar), (vobj, 0));
            }
            for (i, c) in func.constraints.iter().enumerate() {
                self.constraint(Some(f), i, c);
            }
            for &c in &func.calls {
                match prog.calls[c as usize].callee {
                    Callee::Direct(g) => self.bind(c as usize, g),
                    Callee::Indirect(v) => self.resolve(c as usize, Var::Prog(v)),
                }
            }
        }
        // Cx::Call of the models' callbacks (the only synthetic indirect calls).
        for c in prog.calls.len()..self.calls.len() {
            if let RCallee::Indirect(v) = self.calls[c].callee {
                self.resolve(c, v);
            }
        }
        for (c, g) in self.bound.clone() {
            self.binding(c, g);
        }
        self.escape_closure();
        for i in 0..self.memcopies.len() {
            self.memcopy(i);
        }
    }

    /// Solver::install + apply_cx for one constraint.
    fn constraint(&mut self, func: Option<FuncId>, index: usize, c: &Constraint) {
        match c {
            // install: AddrOf -> add_pts(dst, loc(obj, offset)).
            Constraint::AddrOf { dst, obj, offset } => {
                let l = self.loc(*obj, *offset);
                self.add_pts(Var::Prog(*dst), l);
            }
            // install: Copy -> edge src -> dst.
            Constraint::Copy { dst, src } => {
                let s = self.points_to(Var::Prog(*src));
                self.add_pts_all(Var::Prog(*dst), s);
            }
            // apply_cx Cx::Load: covering(loc, size) -> dst, for every loc of ptr.
            Constraint::Load { dst, ptr, size } => {
                self.load(Var::Prog(*dst), Var::Prog(*ptr), *size)
            }
            // apply_cx Cx::Store.
            Constraint::Store { ptr, src, size } => {
                self.store(Var::Prog(*ptr), Var::Prog(*src), *size)
            }
            // apply_cx Cx::Gep: shift every loc of src.
            Constraint::Gep { dst, src, gep } => self.gep(Var::Prog(*dst), Var::Prog(*src), gep),
            // add_memcopy: applied with the other memcopies in `memcopy`.
            Constraint::MemCopy { dst, src, size } => self.memcopy_instance(
                MemCopyOrigin::Constraint { func, index },
                Var::Prog(*dst),
                Var::Prog(*src),
                *size,
            ),
            // install: Escape -> edge src -> ext.
            Constraint::Escape { src } => {
                let s = self.points_to(Var::Prog(*src));
                self.add_pts_all(Var::Ext, s);
            }
        }
    }

    /// apply_cx Cx::Load.
    fn load(&mut self, dst: Var, ptr: Var, size: u64) {
        for l in self.points_to(ptr) {
            for f in self.covering(l, size) {
                let s = self.contents(f);
                self.add_pts_all(dst, s);
            }
        }
    }

    /// apply_cx Cx::Store: nothing flows into constant memory or code.
    fn store(&mut self, ptr: Var, src: Var, size: u64) {
        for l in self.points_to(ptr) {
            if !self.objects[l.0 as usize].is_writable() {
                continue;
            }
            for f in self.covering(l, size) {
                let s = self.points_to(src);
                self.add_mem_all(f, s);
            }
        }
    }

    /// apply_cx Cx::Gep.
    fn gep(&mut self, dst: Var, src: Var, g: &Gep) {
        for l in self.points_to(src) {
            let out: LocSet = self.shift(l, g).into_iter().collect();
            self.add_pts_all(dst, out);
        }
    }

    fn memcopy_instance(&mut self, origin: MemCopyOrigin, dst: Var, src: Var, size: Option<u64>) {
        if !self.memcopy_index.contains_key(&origin) {
            self.memcopies.push(MemCopyInst { dst, src, size });
            self.memcopy_index.insert(origin, self.memcopies.len() - 1);
            self.changed = true;
        }
    }

    /// apply_memcopy in pairwise mode, over every pair of the current sets:
    /// copy_object_contents (or the merge-free lower bound, `MemCopyMode::Direct`).
    fn memcopy(&mut self, i: usize) {
        let MemCopyInst { dst, src, size } = self.memcopies[i].clone();
        let tmp = Var::Tmp(i);
        for ld in self.points_to(dst) {
            for ls in self.points_to(src) {
                let (ld, ls) = (self.canon(ld), self.canon(ls));
                let (od, os) = (ld.0, ls.0);
                if !self.objects[od as usize].is_writable() || self.objects[os as usize].is_code() {
                    continue; // code is not data; constant memory is never written
                }
                let same = self.objects[od as usize].layout.is_some()
                    && self.objects[od as usize].layout == self.objects[os as usize].layout
                    && ld.1 == ls.1
                    && !self.is_fi(od)
                    && !self.is_fi(os);
                let src_fields = self.copied_fields(ls, size);
                if same {
                    // Same layout and position: field by field.
                    for f in src_fields {
                        let s = self.contents(f);
                        self.add_mem_all((od, f.1), s);
                    }
                    continue;
                }
                let dst_fields = self.copied_fields(ld, size);
                match self.mode {
                    MemCopyMode::Pairwise => {
                        for f in src_fields {
                            let s = self.contents(f);
                            self.add_pts_all(tmp, s);
                        }
                        for f in dst_fields {
                            let s = self.points_to(tmp);
                            self.add_mem_all(f, s);
                        }
                    }
                    MemCopyMode::Direct => {
                        for &f in &src_fields {
                            for &d in &dst_fields {
                                let s = self.contents(f);
                                self.add_mem_all(d, s);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Solver::bind, the part done once: the call graph edge.
    fn bind(&mut self, c: usize, g: FuncId) {
        if self.bound.insert((c, g)) {
            self.changed = true;
        }
        let caller = self.calls[c].caller;
        if self.callees[caller as usize].insert(g) {
            self.changed = true;
        }
    }

    /// apply_cx Cx::Call: bind the call to every function its callee variable points to
    /// whose arity and signature fit.
    fn resolve(&mut self, c: usize, v: Var) {
        for l in self.points_to(v) {
            if let Some(g) = self.objects[l.0 as usize].func {
                if self.arity_fits(c, g) && self.signature_fits(c, g) {
                    self.bind(c, g);
                }
            }
        }
    }

    /// Solver::arity_fits.
    fn arity_fits(&self, c: usize, g: FuncId) -> bool {
        let f = &self.prog.functions[g as usize];
        !f.defined || f.model.is_some() || self.calls[c].args.len() >= f.formals.len()
    }

    /// Solver::signature_fits: program calls only.
    fn signature_fits(&self, c: usize, g: FuncId) -> bool {
        let f = &self.prog.functions[g as usize];
        if c >= self.prog.calls.len() || !f.defined || f.model.is_some() {
            return true;
        }
        let call = &self.calls[c];
        let Some(arg_ptr) = &call.arg_ptr else {
            return true;
        };
        let args_fit = f
            .formals
            .iter()
            .zip(arg_ptr)
            .all(|(fo, &a)| fo.is_some() == a);
        let ret_fits = call.ret.is_none() || f.ret.is_some();
        args_fit && ret_fits
    }

    /// Solver::bind, the flows of a bound (call, function) pair: a model, or arguments to
    /// formals (extra ones to the variadic area), the result back, and the callee live.
    fn binding(&mut self, c: usize, g: FuncId) {
        let call = self.calls[c].clone();
        let func = &self.prog.functions[g as usize];
        if let Some(model) = call.model.or(func.model) {
            let cells = func.ret_cells_hold_pointers;
            self.apply_model(c, g, &call, model);
            // Solver::bind: such storage's cells point to what it stands for, itself.
            if cells && model.returns_static() && call.ret.is_some() {
                let h = self.site_object(c);
                self.add_mem_all((h, 0), std::iter::once((h, 0)).collect());
            }
            if call.model.is_none() && func.body_replaced() {
                // The arguments to the formals, and the function live (its own effects
                // are the model's on them).
                self.bind_args(&call, g);
                if self.live.insert(g) {
                    self.changed = true;
                }
            }
        } else if func.defined {
            self.bind_args(&call, g);
            if let (Some(r), Some(gr)) = (call.ret, func.ret) {
                let s = self.points_to(Var::Prog(gr));
                self.add_pts_all(r, s);
            }
            if self.live.insert(g) {
                self.changed = true;
            }
        } else {
            self.apply_model(c, g, &call, Model::Unknown);
        }
    }

    /// Solver::bind_args: arguments to formals, extra ones to the variadic area.
    fn bind_args(&mut self, call: &RCall, g: FuncId) {
        let func = &self.prog.functions[g as usize];
        for (i, a) in call.args.iter().enumerate() {
            let Some(a) = *a else { continue };
            match func.formals.get(i) {
                Some(Some(f)) => {
                    let s = self.points_to(a);
                    self.add_pts_all(Var::Prog(*f), s);
                }
                Some(None) => {}
                None => {
                    if let Some((vobj, _)) = func.varargs {
                        let s = self.points_to(a);
                        self.add_mem_all((vobj, 0), s);
                    }
                }
            }
        }
    }

    /// Solver::site_object: the object models allocate at call c, made on first use.
    fn site_object(&mut self, c: usize) -> ObjId {
        if let Some(h) = self.calls[c].heap {
            return h;
        }
        let caller = self
            .prog
            .functions
            .get(self.calls[c].caller as usize)
            .map(|f| f.name.as_str())
            .unwrap_or("<external>");
        let label = crate::site::heap(caller, self.calls[c].line);
        self.objects.push(Object {
            label: label.into(),
            kind: ObjKind::Heap,
            layout: None,
            owner: None,
            func: None,
            readonly: false,
        });
        let o = (self.objects.len() - 1) as ObjId;
        self.calls[c].heap = Some(o);
        self.site_call.insert(o, c);
        self.changed = true;
        o
    }

    /// A synthetic call, made once per origin.
    fn synthetic_call(&mut self, call: RCall) -> usize {
        if let Some(&c) = self.call_index.get(&call.origin) {
            return c;
        }
        self.call_index
            .insert(call.origin.clone(), self.calls.len());
        self.calls.push(call);
        self.changed = true;
        self.calls.len() - 1
    }

    /// Solver::apply_body_model: the model of `f`, whose body it replaces, applied to its
    /// formals by a call of `f` by itself; all of it for an entry, else only the effects
    /// that are its own (`models::own_effect`), each of its calls having applied the rest.
    fn body_model(&mut self, f: FuncId) {
        let func = &self.prog.functions[f as usize];
        let Some(Model::Known(effects)) = func.model else {
            return;
        };
        let entry = self.body_entries.contains(&f);
        let c = self.synthetic_call(RCall {
            origin: CallOrigin::Body { func: f },
            caller: f,
            callee: RCallee::Direct(f),
            args: func.formals.iter().map(|a| a.map(Var::Prog)).collect(),
            ret: func.ret.map(Var::Prog),
            line: 0,
            heap: None,
            arg_ptr: None,
            model: None,
        });
        let call = self.calls[c].clone();
        let own: Vec<Effect> = effects
            .iter()
            .copied()
            .filter(|e| entry || crate::models::own_effect(e))
            .collect();
        self.apply_effects(c, f, &call, &own);
    }

    /// Solver::apply_model: the effects of model `model` of `g` at call c.
    fn apply_model(&mut self, c: usize, g: FuncId, call: &RCall, model: Model) {
        let caller = call.caller;
        let effects = match model {
            Model::Known(e) => e,
            Model::Unknown => {
                // Arguments escape, the result is anything escaped (and the call's fresh
                // object, which escapes too), and the caller calls unknown code, which
                // reads and writes everything escaped.
                for a in call.args.iter().flatten() {
                    let s = self.points_to(*a);
                    self.add_pts_all(Var::Ext, s);
                }
                let h = self.site_object(c);
                self.add_pts(Var::Ext, (h, 0));
                if let Some(r) = call.ret {
                    let s = self.points_to(Var::Ext);
                    self.add_pts_all(r, s);
                }
                let x = self.x();
                if self.callees[caller as usize].insert(x) {
                    self.changed = true;
                }
                // The solver adds these only `if self.accesses[x].is_empty()`: see the
                // module comment.
                // Unknown code may also free what escaped (the solver's `frees` of it).
                self.add_access(
                    x,
                    RAccess {
                        ptr: Var::Ext,
                        size: None,
                        write: true,
                        deep: false,
                        free: true,
                    },
                );
                self.add_access(
                    x,
                    RAccess {
                        ptr: Var::Ext,
                        size: None,
                        write: false,
                        deep: false,
                        free: false,
                    },
                );
                return;
            }
        };
        self.apply_effects(c, g, call, effects);
    }

    /// The effects of a known model of `g` at call c.
    fn apply_effects(&mut self, c: usize, g: FuncId, call: &RCall, effects: &[Effect]) {
        let caller = call.caller;
        let arg = |i: usize| call.args.get(i).copied().flatten();
        for (k, e) in effects.iter().enumerate() {
            match *e {
                Effect::Alloc | Effect::RetStatic => {
                    if let Some(r) = call.ret {
                        let h = self.site_object(c);
                        self.add_pts(r, (h, 0));
                    }
                }
                Effect::Realloc(i) => {
                    if let Some(r) = call.ret {
                        let h = self.site_object(c);
                        self.add_pts(r, (h, 0));
                        if let Some(a) = arg(i) {
                            self.memcopy_instance(
                                MemCopyOrigin::Model {
                                    call: c,
                                    target: g,
                                    effect: k,
                                },
                                r,
                                a,
                                None,
                            );
                        }
                    }
                }
                Effect::ModRet => {
                    if let Some(r) = call.ret {
                        self.add_access(
                            caller,
                            RAccess {
                                ptr: r,
                                size: None,
                                write: true,
                                deep: false,
                                free: false,
                            },
                        );
                    }
                }
                Effect::RetArg(i) => {
                    if let (Some(r), Some(a)) = (call.ret, arg(i)) {
                        let s = self.points_to(a);
                        self.add_pts_all(r, s);
                    }
                }
                Effect::RetInto(i) => {
                    if let (Some(r), Some(a)) = (call.ret, arg(i)) {
                        self.gep(r, a, &Gep::unknown());
                    }
                }
                Effect::Free(i) => {
                    if let Some(a) = arg(i) {
                        self.add_access(
                            caller,
                            RAccess {
                                ptr: a,
                                size: None,
                                write: true,
                                deep: false,
                                free: true,
                            },
                        );
                    }
                }
                Effect::Symbolic(i) => {
                    if let Some(a) = arg(i) {
                        self.add_access(
                            caller,
                            RAccess {
                                ptr: a,
                                size: None,
                                write: true,
                                deep: false,
                                free: false,
                            },
                        );
                        // `Solver`'s: what `unknown` holds (itself) into every cell.
                        let u = match self.unknown_input {
                            Some(u) => u,
                            None => {
                                self.objects.push(Object {
                                    label: crate::site::UNKNOWN.into(),
                                    kind: ObjKind::Heap,
                                    layout: None,
                                    owner: None,
                                    func: None,
                                    readonly: false,
                                });
                                let u = (self.objects.len() - 1) as ObjId;
                                self.add_mem_all((u, 0), [(u, 0)].into_iter().collect());
                                self.unknown_input = Some(u);
                                self.changed = true;
                                u
                            }
                        };
                        let t = Var::Model { call: c, effect: k };
                        self.add_pts(t, (u, 0));
                        self.memcopy_instance(
                            MemCopyOrigin::Model {
                                call: c,
                                target: g,
                                effect: k,
                            },
                            a,
                            t,
                            None,
                        );
                    }
                }
                Effect::Mod(i) | Effect::Ref(i) | Effect::ModDeep(i) | Effect::RefDeep(i) => {
                    if let Some(a) = arg(i) {
                        let write = matches!(e, Effect::Mod(_) | Effect::ModDeep(_));
                        let deep = matches!(e, Effect::ModDeep(_) | Effect::RefDeep(_));
                        self.add_access(
                            caller,
                            RAccess {
                                ptr: a,
                                size: None,
                                write,
                                deep,
                                free: false,
                            },
                        );
                    }
                }
                Effect::ModFrom(i) | Effect::RefFrom(i) => {
                    let write = matches!(e, Effect::ModFrom(_));
                    for a in call.args.iter().skip(i).flatten() {
                        self.add_access(
                            caller,
                            RAccess {
                                ptr: *a,
                                size: None,
                                write,
                                deep: false,
                                free: false,
                            },
                        );
                    }
                }
                Effect::Copy(d, s) => {
                    if let (Some(d), Some(s)) = (arg(d), arg(s)) {
                        self.memcopy_instance(
                            MemCopyOrigin::Model {
                                call: c,
                                target: g,
                                effect: k,
                            },
                            d,
                            s,
                            None,
                        );
                    }
                }
                Effect::StoreInto { ptr, into } => {
                    if let (Some(p), Some(a)) = (arg(ptr), arg(into)) {
                        let t = Var::Model { call: c, effect: k };
                        self.gep(t, a, &Gep::unknown());
                        self.store(p, t, 8);
                    }
                }
                Effect::StoreAlloc(i) => {
                    if let Some(p) = arg(i) {
                        let t = Var::Model { call: c, effect: k };
                        let h = self.site_object(c);
                        self.add_pts(t, (h, 0));
                        self.store(p, t, 8);
                    }
                }
                Effect::Callback { func, args } => {
                    if let Some(fp) = arg(func) {
                        self.synthetic_call(RCall {
                            origin: CallOrigin::Callback {
                                parent: c,
                                target: g,
                                effect: k,
                            },
                            caller: call.caller,
                            callee: RCallee::Indirect(fp),
                            args: args.iter().map(|&i| arg(i)).collect(),
                            ret: None,
                            line: call.line,
                            heap: None,
                            arg_ptr: None,
                            model: None,
                        });
                    }
                }
            }
        }
    }

    /// apply_cx Cx::EscapeClosure: every object ext points to escapes; its fields (not a
    /// function's) point into ext and back (not into constant memory), and unknown code
    /// may call an escaped function with escaped arguments.
    fn escape_closure(&mut self) {
        for l in self.points_to(Var::Ext) {
            let o = l.0;
            if self.escaped.insert(o) {
                self.changed = true;
            }
            let ob = self.objects[o as usize].clone();
            if !ob.is_code() {
                for f in self.field_range(o) {
                    self.add_pts(Var::Ext, f);
                    let s = self.contents(f);
                    self.add_pts_all(Var::Ext, s);
                    if ob.is_writable() {
                        let s = self.points_to(Var::Ext);
                        self.add_mem_all(f, s);
                    }
                }
            }
            if let Some(g) = ob.func {
                let nargs = self.prog.functions[g as usize].formals.len().max(1);
                let c = self.synthetic_call(RCall {
                    origin: CallOrigin::Escape { obj: o },
                    caller: self.x(),
                    callee: RCallee::Direct(g),
                    args: vec![Some(Var::Ext); nargs],
                    ret: Some(Var::Ext),
                    line: 0,
                    heap: None,
                    arg_ptr: None,
                    model: None,
                });
                self.bind(c, g);
            }
        }
    }

    /// Whether the solver, whatever order it takes, must reach exactly this (pairwise-mode)
    /// result for the memcopies. Err when it has a choice:
    /// - `MemCopyChoice::Collapse`: a pair of objects of one layout, one of which collapsed,
    ///   may have been copied field by field before the collapse, and the solver does not
    ///   redo the pair through the merge node: its result lies between the merge-free
    ///   reference (`MemCopyMode::Direct`) and this one.
    /// - `MemCopyChoice::Merged`: a memcopy may have had more than `PAIRWISE_MEMCOPY` = 4096
    ///   location pairs (counting every field an object may have had before it collapsed)
    ///   and gone to merged mode: the solver's result includes the merge-free reference's.
    pub fn memcopy_exact(&self) -> Result<(), MemCopyChoice> {
        let mut collapse = None;
        for (i, m) in self.memcopies.iter().enumerate() {
            let (d, s) = (self.points_to(m.dst), self.points_to(m.src));
            let bound = |set: &LocSet| -> u64 {
                let objs: BTreeSet<ObjId> = set.iter().map(|l| l.0).collect();
                objs.iter()
                    .map(|&o| {
                        if self.collapsed.contains(&o) {
                            self.nfields(o) as u64
                        } else {
                            set.iter().filter(|l| l.0 == o).count() as u64
                        }
                    })
                    .sum()
            };
            if bound(&d) * bound(&s) > 4096 {
                return Err(MemCopyChoice::Merged(format!(
                    "memcopy {i} may have gone to merged mode"
                )));
            }
            for ld in &d {
                for ls in &s {
                    let (od, os) = (&self.objects[ld.0 as usize], &self.objects[ls.0 as usize]);
                    if collapse.is_none()
                        && od.is_writable()
                        && !os.is_code()
                        && od.layout.is_some()
                        && od.layout == os.layout
                        && (self.collapsed.contains(&ld.0) || self.collapsed.contains(&ls.0))
                    {
                        collapse = Some(format!("memcopy {i}: {} <- {} may have been copied field by field before a collapse", od.label, os.label));
                    }
                }
            }
        }
        collapse.map_or(Ok(()), |why| Err(MemCopyChoice::Collapse(why)))
    }

    // ---- mod/ref (modref.rs) ---------------------------------------------------------------

    /// modref::access_locs.
    fn access_locs(&self, a: &RAccess, walked: &mut BTreeSet<ObjId>) -> LocSet {
        let mut out = LocSet::new();
        let targets = self.points_to(a.ptr);
        if a.deep {
            // Everything reachable from the pointer, over objects.
            let mut seen = BTreeSet::new();
            let mut work: Vec<Loc> = targets.into_iter().collect();
            while let Some(l) = work.pop() {
                let o = l.0;
                if !seen.insert(o) || self.objects[o as usize].is_code() {
                    continue;
                }
                walked.insert(o);
                for f in self.field_range(o) {
                    work.extend(self.contents(f));
                }
                if !a.write || self.objects[o as usize].is_writable() {
                    out.extend(self.field_range(o));
                }
            }
            return out;
        }
        for l in targets {
            let ob = &self.objects[l.0 as usize];
            if ob.is_code() || (a.write && !ob.is_writable()) {
                continue;
            }
            match a.size {
                None => out.extend(self.field_range(l.0)),
                Some(size) => out.extend(self.covering(l, size).into_iter().map(|k| self.canon(k))),
            }
        }
        out
    }

    /// modref::compute, naively: components by mutual reachability instead of Tarjan, and
    /// what callers see iterated to a fixpoint instead of bottom-up.
    pub fn modref(&self) -> RefModRef {
        let nf = self.callees.len();
        let mut walked = BTreeSet::new();
        let (mut dmod, mut dref) = (vec![LocSet::new(); nf], vec![LocSet::new(); nf]);
        let mut dfree = vec![LocSet::new(); nf];
        for f in 0..nf {
            for a in &self.accesses[f] {
                let locs = self.access_locs(a, &mut walked);
                if a.free {
                    dfree[f].extend(locs.iter().copied());
                }
                (if a.write { &mut dmod[f] } else { &mut dref[f] }).extend(locs);
            }
        }
        // A function's stack objects.
        let mut locals = vec![LocSet::new(); nf];
        for (o, ob) in self.objects.iter().enumerate() {
            if let (ObjKind::Stack, Some(w)) = (ob.kind, ob.owner) {
                locals[w as usize].extend(self.field_range(o as ObjId));
            }
        }
        // reach[f]: functions reachable from f in zero or more calls.
        let reach: Vec<BTreeSet<usize>> = (0..nf)
            .map(|f| {
                let (mut seen, mut work) = (BTreeSet::from([f]), vec![f]);
                while let Some(h) = work.pop() {
                    for &g in &self.callees[h] {
                        if seen.insert(g as usize) {
                            work.push(g as usize);
                        }
                    }
                }
                seen
            })
            .collect();
        let comp: Vec<Vec<usize>> = (0..nf)
            .map(|f| {
                (0..nf)
                    .filter(|&g| reach[f].contains(&g) && reach[g].contains(&f))
                    .collect()
            })
            .collect();
        // Recursive: f calls something that reaches f.
        let recursive: Vec<bool> = (0..nf)
            .map(|f| {
                self.callees[f]
                    .iter()
                    .any(|&g| reach[g as usize].contains(&f))
            })
            .collect();
        let comp_locals: Vec<LocSet> = comp
            .iter()
            .map(|c| c.iter().flat_map(|&h| locals[h].iter().copied()).collect())
            .collect();
        // What a function's component does (all: m) and what its callers see (out: without
        // the component's locals, which die before control returns to them).
        let (mut m_all, mut r_all) = (vec![LocSet::new(); nf], vec![LocSet::new(); nf]);
        let (mut m_out, mut r_out) = (vec![LocSet::new(); nf], vec![LocSet::new(); nf]);
        let (mut f_all, mut f_out) = (vec![LocSet::new(); nf], vec![LocSet::new(); nf]);
        loop {
            let mut changed = false;
            for f in 0..nf {
                let (mut m, mut r, mut fr) = (LocSet::new(), LocSet::new(), LocSet::new());
                for &h in &comp[f] {
                    m.extend(&dmod[h]);
                    r.extend(&dref[h]);
                    fr.extend(&dfree[h]);
                    for &g in &self.callees[h] {
                        // A call of a function whose body a model replaces has the model's
                        // effects where it is made; the function's sets are not its callers'.
                        let replaced = self
                            .prog
                            .functions
                            .get(g as usize)
                            .is_some_and(|x| x.body_replaced());
                        if !comp[f].contains(&(g as usize)) && !replaced {
                            m.extend(&m_out[g as usize]);
                            r.extend(&r_out[g as usize]);
                            fr.extend(&f_out[g as usize]);
                        }
                    }
                }
                let mo: LocSet = m.difference(&comp_locals[f]).copied().collect();
                let ro: LocSet = r.difference(&comp_locals[f]).copied().collect();
                let fo: LocSet = fr.difference(&comp_locals[f]).copied().collect();
                if mo != m_out[f] || ro != r_out[f] || m != m_all[f] || r != r_all[f] {
                    changed = true;
                }
                if fo != f_out[f] || fr != f_all[f] {
                    changed = true;
                }
                (m_all[f], r_all[f], m_out[f], r_out[f]) = (m, r, mo, ro);
                (f_all[f], f_out[f]) = (fr, fo);
            }
            if !changed {
                break;
            }
        }
        let pick = |all: &[LocSet], out: &[LocSet]| -> Vec<LocSet> {
            (0..nf)
                .map(|f| {
                    if recursive[f] {
                        all[f].clone()
                    } else {
                        out[f].clone()
                    }
                })
                .collect()
        };
        RefModRef {
            modset: pick(&m_all, &m_out),
            refset: pick(&r_all, &r_out),
            freeset: pick(&f_all, &f_out),
            walked,
        }
    }
}
