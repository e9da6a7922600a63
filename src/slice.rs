//! The part of a program a call can run, renumbered: what a miss solves over.
//!
//! A call runs the callee, the functions it calls directly, and the functions an indirect
//! call reaches through a pointer; nothing else can be activated. The slice holds the
//! bodies of the first two (transitively) with the objects, variables, call sites,
//! constant-expression constraints and initialisers they use, renumbered from zero, so
//! that building a solver over it costs what the call can touch, not the module (SQLite's
//! whole program is 300,000 variables; most callees use a few hundred).
//!
//! Functions whose addresses the slice meets (taken in its code, held by the state, in
//! an initialiser of an object it holds) come as their address and signature only
//! (`Function::address_only`): SQLite's state points to its VFS, page cache, mutex and
//! allocator method tables and to the built-in function table, and their bodies with
//! what they name were most of the program, although a call runs one or two of them. A
//! solve that binds such a function reports it (`Solver::demanded_bodies`), and the
//! caller makes the slice again with that body (the session remembers it per callee).
//!
//! Objects the state brings that the slice's code never names (globals met through
//! pointers, static objects of merged post-states) are added to the solver as objects of
//! their own: no code of the slice can name them.

use crate::facts::{CallId, Callee, Constraint, FuncId, Function, ObjId, Program, VarId};
use crate::reach::Reach;
use rustc_hash::{FxHashMap, FxHashSet};

/// What slicing looks up by id, built once per program: stack objects by owner, the
/// constant-expression constraints defining each variable, global initialisers by object.
pub struct ProgramIndex {
    owned: FxHashMap<FuncId, Vec<ObjId>>,
    const_defs: FxHashMap<VarId, Vec<usize>>,
    inits: FxHashMap<ObjId, Vec<usize>>,
}

impl ProgramIndex {
    pub fn new(prog: &Program) -> ProgramIndex {
        let mut owned: FxHashMap<FuncId, Vec<ObjId>> = FxHashMap::default();
        for (o, ob) in prog.objects.iter().enumerate() {
            if let Some(f) = ob.owner {
                owned.entry(f).or_default().push(o as ObjId);
            }
        }
        let mut const_defs: FxHashMap<VarId, Vec<usize>> = FxHashMap::default();
        for (i, c) in prog.init_constraints.iter().enumerate() {
            if let Some(d) = c.dst() {
                const_defs.entry(d).or_default().push(i);
            }
        }
        let mut inits: FxHashMap<ObjId, Vec<usize>> = FxHashMap::default();
        for (i, &(o, ..)) in prog.init.iter().enumerate() {
            inits.entry(o).or_default().push(i);
        }
        ProgramIndex {
            owned,
            const_defs,
            inits,
        }
    }
}

pub struct Slice {
    pub prog: Program,
    /// Slice object -> program object, and back.
    obj_full: Vec<ObjId>,
    obj_slice: FxHashMap<ObjId, ObjId>,
    func_full: Vec<FuncId>,
    func_slice: FxHashMap<FuncId, FuncId>,
    /// Slice variable -> program variable.
    var_full: Vec<VarId>,
}

impl Slice {
    /// The slice of `prog` with the bodies of `bodies` (the callee, and functions earlier
    /// solves bound) and what they call, and the addresses of `addresses` (the functions
    /// the state points to) and of every function the slice names. `index` is `prog`'s,
    /// built once: a slice costs what it holds.
    pub fn new(
        prog: &Program,
        reach: &Reach,
        index: &ProgramIndex,
        bodies: &[FuncId],
        addresses: &[FuncId],
    ) -> Slice {
        let ProgramIndex {
            owned,
            const_defs,
            inits,
        } = index;
        let mut funcs: Vec<FuncId> = Vec::new();
        let mut fseen: FxHashSet<FuncId> = FxHashSet::default();
        let mut objs: Vec<ObjId> = Vec::new();
        let mut oseen: FxHashSet<ObjId> = FxHashSet::default();
        let mut vars: Vec<VarId> = Vec::new();
        let mut vseen: FxHashSet<VarId> = FxHashSet::default();
        let mut consts: Vec<usize> = Vec::new();
        let mut cseen: FxHashSet<usize> = FxHashSet::default();
        let mut fwork: Vec<FuncId> = bodies.to_vec();
        // Functions whose address (and signature) the slice needs, perhaps not the body.
        let mut awork: Vec<FuncId> = addresses.to_vec();
        let mut aseen: FxHashSet<FuncId> = FxHashSet::default();
        let mut owork: Vec<ObjId> = Vec::new();
        let mut vwork: Vec<VarId> = Vec::new();
        loop {
            if let Some(f) = fwork.pop() {
                if !fseen.insert(f) {
                    continue;
                }
                funcs.push(f);
                let func = &prog.functions[f as usize];
                owork.push(func.obj);
                owork.extend(owned.get(&f).into_iter().flatten());
                if let Some((o, v)) = func.varargs {
                    owork.push(o);
                    vwork.push(v);
                }
                vwork.extend(func.formals.iter().flatten());
                vwork.extend(func.ret);
                for c in &func.constraints {
                    constraint_vars(c, &mut vwork);
                    if let Constraint::AddrOf { obj, .. } = *c {
                        owork.push(obj);
                    }
                }
                vwork.extend(func.accesses.iter().map(|a| a.ptr));
                for &cid in &func.calls {
                    let call = &prog.calls[cid as usize];
                    vwork.extend(call.args.iter().flatten());
                    vwork.extend(call.ret);
                    owork.extend(call.heap);
                    match call.callee {
                        // A call that ends the process is not followed (`Solver::
                        // cut_exits`): its address only, and its body on demand when
                        // an analysis follows it.
                        Callee::Direct(g) if prog.functions[g as usize].ends_process => {
                            awork.push(g)
                        }
                        Callee::Direct(g) => fwork.push(g),
                        Callee::Indirect(v) => vwork.push(v),
                    }
                }
                // Taken addresses (direct callees came with the calls above).
                awork.extend(reach.named_functions(f).iter().copied());
            } else if let Some(f) = awork.pop() {
                if fseen.contains(&f) || !aseen.insert(f) {
                    continue;
                }
                let func = &prog.functions[f as usize];
                if !func.defined || func.model.is_some() {
                    // The solver never runs such a body (a model stands for it), and
                    // binding one applies its model: it needs no demand round.
                    fwork.push(f);
                    continue;
                }
                owork.push(func.obj);
                if let Some((o, v)) = func.varargs {
                    owork.push(o);
                    vwork.push(v);
                }
                vwork.extend(func.formals.iter().flatten());
                vwork.extend(func.ret);
            } else if let Some(o) = owork.pop() {
                if !oseen.insert(o) {
                    continue;
                }
                objs.push(o);
                if let Some(g) = prog.objects[o as usize].func {
                    awork.push(g);
                }
                for &i in inits.get(&o).into_iter().flatten() {
                    owork.push(prog.init[i].2);
                }
            } else if let Some(v) = vwork.pop() {
                if !vseen.insert(v) {
                    continue;
                }
                vars.push(v);
                for &i in const_defs.get(&v).into_iter().flatten() {
                    if cseen.insert(i) {
                        consts.push(i);
                        let c = &prog.init_constraints[i];
                        constraint_vars(c, &mut vwork);
                        if let Constraint::AddrOf { obj, .. } = *c {
                            owork.push(obj);
                        }
                    }
                }
            } else {
                break;
            }
        }
        // A function whose body came after its address has both; the others are
        // addresses only.
        let address_only: FxHashSet<FuncId> = aseen.difference(&fseen).copied().collect();
        funcs.extend(address_only.iter().copied());
        // Program order, so that a slice is deterministic and solver ids follow the
        // module's (the same order of facts as a whole-program solve).
        funcs.sort_unstable();
        objs.sort_unstable();
        vars.sort_unstable();
        consts.sort_unstable();
        let func_slice: FxHashMap<FuncId, FuncId> = funcs
            .iter()
            .enumerate()
            .map(|(i, &f)| (f, i as FuncId))
            .collect();
        let obj_slice: FxHashMap<ObjId, ObjId> = objs
            .iter()
            .enumerate()
            .map(|(i, &o)| (o, i as ObjId))
            .collect();
        let var_slice: FxHashMap<VarId, VarId> = vars
            .iter()
            .enumerate()
            .map(|(i, &v)| (v, i as VarId))
            .collect();
        let fv = |v: VarId| var_slice[&v];
        let fo = |o: ObjId| obj_slice[&o];
        let ff = |f: FuncId| func_slice[&f];
        let map_c = |c: &Constraint| -> Constraint {
            match c.clone() {
                Constraint::AddrOf { dst, obj, offset } => Constraint::AddrOf {
                    dst: fv(dst),
                    obj: fo(obj),
                    offset,
                },
                Constraint::Copy { dst, src } => Constraint::Copy {
                    dst: fv(dst),
                    src: fv(src),
                },
                Constraint::Load { dst, ptr, size } => Constraint::Load {
                    dst: fv(dst),
                    ptr: fv(ptr),
                    size,
                },
                Constraint::Store { ptr, src, size } => Constraint::Store {
                    ptr: fv(ptr),
                    src: fv(src),
                    size,
                },
                Constraint::Gep { dst, src, gep } => Constraint::Gep {
                    dst: fv(dst),
                    src: fv(src),
                    gep,
                },
                Constraint::MemCopy { dst, src, size } => Constraint::MemCopy {
                    dst: fv(dst),
                    src: fv(src),
                    size,
                },
                Constraint::Escape { src } => Constraint::Escape { src: fv(src) },
            }
        };
        let mut p = Program::default();
        p.module = prog.module.clone();
        p.layouts = prog.layouts.clone();
        p.num_vars = vars.len() as VarId;
        for &o in &objs {
            let mut ob = prog.objects[o as usize].clone();
            // A local of a function outside the slice (none today: only its own code
            // names it) would be no frame's local here: kept, the conservative side.
            ob.owner = ob.owner.and_then(|g| func_slice.get(&g).copied());
            // A function object whose function is outside the slice cannot be: objects
            // pull their functions in above.
            ob.func = ob.func.map(ff);
            p.objects.push(ob);
        }
        let mut calls: Vec<CallId> = Vec::new();
        for &f in &funcs {
            let func = &prog.functions[f as usize];
            if address_only.contains(&f) {
                p.functions.push(Function {
                    name: func.name.clone(),
                    defined: func.defined,
                    formals: func.formals.iter().map(|v| v.map(fv)).collect(),
                    ret: func.ret.map(fv),
                    varargs: func.varargs.map(|(o, v)| (fo(o), fv(v))),
                    obj: fo(func.obj),
                    model: func.model,
                    address_only: true,
                    ends_process: func.ends_process,
                    ret_cells_hold_pointers: func.ret_cells_hold_pointers,
                    ..Default::default()
                });
                continue;
            }
            let mut nf = func.clone();
            nf.formals = func.formals.iter().map(|v| v.map(fv)).collect();
            nf.ret = func.ret.map(fv);
            nf.varargs = func.varargs.map(|(o, v)| (fo(o), fv(v)));
            nf.obj = fo(func.obj);
            nf.constraints = func.constraints.iter().map(map_c).collect();
            for a in &mut nf.accesses {
                a.ptr = fv(a.ptr);
            }
            nf.calls = func
                .calls
                .iter()
                .map(|&c| {
                    calls.push(c);
                    (calls.len() - 1) as CallId
                })
                .collect();
            p.functions.push(nf);
        }
        for &c in &calls {
            let mut call = prog.calls[c as usize].clone();
            call.caller = ff(call.caller);
            call.callee = match call.callee {
                Callee::Direct(g) => Callee::Direct(ff(g)),
                Callee::Indirect(v) => Callee::Indirect(fv(v)),
            };
            call.args = call.args.iter().map(|a| a.map(fv)).collect();
            call.ret = call.ret.map(fv);
            call.heap = call.heap.map(fo);
            p.calls.push(call);
        }
        p.init = prog
            .init
            .iter()
            .filter(|(o, ..)| obj_slice.contains_key(o))
            .map(|&(o, off, t, toff)| (fo(o), off, fo(t), toff))
            .collect();
        p.init_constraints = consts
            .iter()
            .map(|&i| map_c(&prog.init_constraints[i]))
            .collect();
        Slice {
            prog: p,
            obj_full: objs,
            obj_slice,
            func_full: funcs,
            func_slice,
            var_full: vars,
        }
    }

    /// The slice's id of a program object, if the slice has it.
    pub fn obj(&self, o: ObjId) -> Option<ObjId> {
        self.obj_slice.get(&o).copied()
    }

    /// The program object of a slice object (None for objects the solver made).
    pub fn full_obj(&self, o: ObjId) -> Option<ObjId> {
        self.obj_full.get(o as usize).copied()
    }

    pub fn func(&self, f: FuncId) -> Option<FuncId> {
        self.func_slice.get(&f).copied()
    }

    pub fn full_func(&self, f: FuncId) -> Option<FuncId> {
        self.func_full.get(f as usize).copied()
    }

    /// The program variable of a slice variable (None for variables the solver made).
    pub fn full_var(&self, v: VarId) -> Option<VarId> {
        self.var_full.get(v as usize).copied()
    }
}

fn constraint_vars(c: &Constraint, out: &mut Vec<VarId>) {
    match *c {
        Constraint::AddrOf { dst, .. } => out.push(dst),
        Constraint::Copy { dst, src }
        | Constraint::Gep { dst, src, .. }
        | Constraint::MemCopy { dst, src, .. } => out.extend([dst, src]),
        Constraint::Load { dst, ptr, .. } => out.extend([dst, ptr]),
        Constraint::Store { ptr, src, .. } => out.extend([ptr, src]),
        Constraint::Escape { src } => out.push(src),
    }
}
