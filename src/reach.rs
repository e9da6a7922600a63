//! The globals a call can reach by name: the roots of its projection (paper 4.1), narrowed.
//!
//! Code reaches memory in two ways only: through the pointers it is given (the call's
//! arguments and whatever memory they lead to) and through the globals and functions it
//! names (an `AddrOf` in its constraints, directly or inside a constant expression). A
//! call of a function adds what that function names; a call through a pointer adds what
//! the pointed-to function names, and that pointer itself came from one of the two
//! sources. So the globals a call can touch are: those named by the functions reachable
//! from the callee through named functions (this module), plus what memory reachable from
//! the arguments and those globals leads to, closed over the function pointers met on the
//! way (the projection, [`crate::memory_graph::MemoryGraph::project`], asks
//! [`Reach::globals`] again for each function it meets). Everything else stays out of the
//! projection: `strlen(s)` projects `s`'s object alone.

use crate::facts::{Callee, Constraint, FuncId, ObjId, ObjKind, Program, VarId};
use rustc_hash::{FxHashMap, FxHashSet};
use std::cell::RefCell;
use std::rc::Rc;

pub struct Reach {
    /// Per function, the global objects and the functions its code names.
    named_globals: Vec<Vec<ObjId>>,
    named_funcs: Vec<Vec<FuncId>>,
    /// Per function, the globals named by everything it reaches through named functions.
    memo: RefCell<FxHashMap<FuncId, Rc<[ObjId]>>>,
}

impl Reach {
    pub fn new(prog: &Program) -> Reach {
        // Constant expressions (`gep(@g, ...)`, casts) are variables defined by the
        // program-wide constraints; what objects each names.
        let mut consts: FxHashMap<VarId, Vec<ObjId>> = FxHashMap::default();
        loop {
            let mut changed = false;
            for c in &prog.init_constraints {
                let (dst, new): (VarId, Vec<ObjId>) = match *c {
                    Constraint::AddrOf { dst, obj, .. } => (dst, vec![obj]),
                    Constraint::Copy { dst, src } | Constraint::Gep { dst, src, .. } => {
                        (dst, consts.get(&src).cloned().unwrap_or_default())
                    }
                    // Not made for constants today; if they ever are, a constraint that
                    // names nothing adds nothing.
                    _ => continue,
                };
                let e = consts.entry(dst).or_default();
                for o in new {
                    if !e.contains(&o) {
                        e.push(o);
                        changed = true;
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let mut named_globals = vec![Vec::new(); prog.functions.len()];
        let mut named_funcs = vec![Vec::new(); prog.functions.len()];
        for (f, func) in prog.functions.iter().enumerate() {
            let mut objs: FxHashSet<ObjId> = FxHashSet::default();
            let var = |v: VarId, objs: &mut FxHashSet<ObjId>| {
                if let Some(os) = consts.get(&v) {
                    objs.extend(os.iter().copied());
                }
            };
            for c in &func.constraints {
                match *c {
                    Constraint::AddrOf { obj, .. } => {
                        objs.insert(obj);
                    }
                    Constraint::Copy { dst, src }
                    | Constraint::Gep { dst, src, .. }
                    | Constraint::MemCopy { dst, src, .. } => {
                        var(dst, &mut objs);
                        var(src, &mut objs);
                    }
                    Constraint::Load { dst, ptr, .. } => {
                        var(dst, &mut objs);
                        var(ptr, &mut objs);
                    }
                    Constraint::Store { ptr, src, .. } => {
                        var(ptr, &mut objs);
                        var(src, &mut objs);
                    }
                    Constraint::Escape { src } => var(src, &mut objs),
                }
            }
            for a in &func.accesses {
                var(a.ptr, &mut objs);
            }
            let mut funcs: FxHashSet<FuncId> = FxHashSet::default();
            for &cid in &func.calls {
                let call = &prog.calls[cid as usize];
                for &a in call.args.iter().flatten() {
                    var(a, &mut objs);
                }
                match call.callee {
                    Callee::Direct(g) => {
                        funcs.insert(g);
                    }
                    Callee::Indirect(v) => var(v, &mut objs),
                }
            }
            for o in objs {
                let ob = &prog.objects[o as usize];
                match (ob.kind, ob.func) {
                    (ObjKind::Func, Some(g)) => {
                        funcs.insert(g);
                    }
                    (ObjKind::Global, _) => named_globals[f].push(o),
                    _ => {}
                }
            }
            named_globals[f].sort_unstable();
            named_funcs[f] = funcs.into_iter().collect();
            named_funcs[f].sort_unstable();
        }
        Reach {
            named_globals,
            named_funcs,
            memo: RefCell::new(FxHashMap::default()),
        }
    }

    /// The globals that `f` and every function it reaches through named functions name,
    /// sorted. Memoised: the same callee is asked again at each of its calls.
    pub fn globals(&self, f: FuncId) -> Rc<[ObjId]> {
        if let Some(r) = self.memo.borrow().get(&f) {
            return r.clone();
        }
        let mut seen = vec![false; self.named_funcs.len()];
        let mut work = vec![f];
        seen[f as usize] = true;
        let mut globals: Vec<ObjId> = Vec::new();
        while let Some(g) = work.pop() {
            globals.extend_from_slice(&self.named_globals[g as usize]);
            for &h in &self.named_funcs[g as usize] {
                if !std::mem::replace(&mut seen[h as usize], true) {
                    work.push(h);
                }
            }
        }
        globals.sort_unstable();
        globals.dedup();
        let r: Rc<[ObjId]> = globals.into();
        self.memo.borrow_mut().insert(f, r.clone());
        r
    }

    /// The functions `f`'s code names (callees and address-taken functions).
    pub fn named_functions(&self, f: FuncId) -> &[FuncId] {
        &self.named_funcs[f as usize]
    }
}
