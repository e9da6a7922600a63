//! Call binding: direct calls are bound when their caller becomes live, indirect ones on
//! the fly as function objects reach the called pointer (checked for arity and signature).
//! Binding activates the callee, or applies its model.

use super::{Cx, Solver};
use crate::facts::*;
use crate::models::Model;

impl<'p> Solver<'p> {
    /// Make a function's constraints part of the problem (it is reachable from an entry).
    /// A function whose body a model replaces gets the model's effects on its formals
    /// instead (`apply_body_model`): all of them when it is an entry (`entry`).
    pub fn activate(&mut self, f: FuncId) {
        self.activate_as(f, false)
    }

    pub(super) fn activate_as(&mut self, f: FuncId, entry: bool) {
        if self.live[f as usize] || !self.prog.functions[f as usize].defined {
            return;
        }
        // Entries and bound callees only: `bind` stops at a function without its body.
        debug_assert!(
            !self.prog.functions[f as usize].address_only,
            "a function without its body was activated"
        );
        self.live[f as usize] = true;
        self.stats.live_functions += 1;
        let func = &self.prog.functions[f as usize];
        if func.body_replaced() {
            self.apply_body_model(f, entry);
            return;
        }
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

    /// Bind indirect call c to the functions among the new targets `delta` of its pointer.
    pub(super) fn bind_targets(&mut self, c: CallId, delta: &super::PtsSet) {
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

    pub(super) fn bind(&mut self, c: CallId, g: FuncId) {
        if !self.bound.insert((c, g)) {
            return;
        }
        if self.cut_exits && self.prog.functions[g as usize].ends_process {
            // The process ends in it: nothing it does is seen by a caller that returns.
            // It is still called (whether a call may end the path asks `callees`).
            let caller = self.calls[c as usize].caller as usize;
            if !self.callees[caller].contains(&g) {
                self.callees[caller].push(g);
            }
            self.stats.exit_calls_cut += 1;
            return;
        }
        if self.prog.functions[g as usize].address_only {
            // Its body is outside the slice: nothing of the call is bound, the answer is
            // incomplete and will be made again with the body (`demanded_bodies`).
            self.demanded_bodies.push(g);
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
            let cells = func.ret_cells_hold_pointers;
            self.apply_model(c, &call, model);
            if cells && model.returns_static() && call.ret.is_some() {
                // A model's static storage whose cells may hold pointers (`__ctype_b_loc`'s
                // cell, into KLEE's ctype table): what they hold is memory the program did
                // not make, which the storage stands for, so the cells point to it
                // (`Program::foreign_storage` tells the clients).
                if let Some(h) = self.calls[c as usize].heap {
                    let hb = self.objs[h as usize].base;
                    self.add_pts(hb, hb);
                }
            }
            if call.model.is_none() && func.body_replaced() {
                // The caller has the model's effects; the replaced function's own sets
                // are the model's over the arguments of all its calls (`activate`).
                self.bind_args(&call, g);
                self.activate(g);
            }
        } else if func.defined {
            self.bind_args(&call, g);
            if let (Some(r), Some(gr)) = (call.ret, func.ret) {
                self.add_edge(gr, r);
            }
            self.activate(g);
        } else {
            self.apply_model(c, &call, Model::Unknown);
        }
    }

    /// The call's arguments flow to g's formals (extra ones to its variadic area).
    fn bind_args(&mut self, call: &CallSite, g: FuncId) {
        let func = &self.prog.functions[g as usize];
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
        let Some(arg_ptr) = &call.arg_ptr else {
            return true;
        };
        // Formals are Some exactly when their type can carry a pointer; so is a call's result.
        let args_fit = f
            .formals
            .iter()
            .zip(arg_ptr)
            .all(|(fo, &a)| fo.is_some() == a);
        let ret_fits = call.ret.is_none() || f.ret.is_some();
        args_fit && ret_fits
    }
}
