//! Library models at calls: the effects a `Model` describes (allocation, copies, stores,
//! callbacks, mod/ref) become nodes, constraints and accesses, and an unknown function
//! gets the conservative policy. Separate from binding: it interprets `crate::models`.

use super::{Cx, Node, Solver};
use crate::facts::*;
use crate::models::{Effect, Model};

impl<'p> Solver<'p> {
    fn model_var(&mut self, c: CallId, k: u32) -> Node {
        if let Some(&n) = self.model_vars.get(&(c, k)) {
            return n;
        }
        let n = self.new_node();
        self.model_vars.insert((c, k), n);
        n
    }

    /// The `unknown` object of input addresses (`Effect::Symbolic`), made at the first
    /// need: field-insensitive, pointing to itself, so that what is loaded through it is it.
    pub(super) fn unknown_object(&mut self) -> ObjId {
        if let Some(u) = self.unknown_input {
            return u;
        }
        let u = self.add_object(Object {
            label: crate::site::UNKNOWN.into(),
            kind: ObjKind::Heap,
            layout: None,
            owner: None,
            func: None,
            readonly: false,
        });
        let ub = self.objs[u as usize].base;
        self.add_pts(ub, ub);
        self.unknown_input = Some(u);
        u
    }

    /// The object a model allocates at call site c (made lazily for synthetic calls).
    fn site_object(&mut self, c: CallId, call: &CallSite) -> ObjId {
        if let Some(h) = call.heap {
            return h;
        }
        let caller = &self
            .prog
            .functions
            .get(call.caller as usize)
            .map(|f| f.name.as_str())
            .unwrap_or("<external>");
        let label = crate::site::heap(caller, call.line);
        let o = self.add_object(Object {
            label: label.into(),
            kind: ObjKind::Heap,
            layout: None,
            owner: None,
            func: None,
            readonly: false,
        });
        self.calls[c as usize].heap = Some(o);
        o
    }

    /// The own effects of `f`, a function whose body its model replaces
    /// (`Function::body_replaced`): the model applied to its formals, as a call of `f` by
    /// itself with its formals as arguments and its result as the call's result, so that
    /// its mod/ref (and may-free set) is the model's on what its formals point to.
    ///
    /// `entry`: `f` is where the solve starts (the analysed call of a past-sensitive
    /// analysis: its formals hold the state's arguments): all of the model, its copies into
    /// memory included (the post-state of `memcpy(d, s)` has `*d`'s pointers). Otherwise
    /// `f` is bound by calls, each of which applied the whole model itself: only what is
    /// `f`'s own, the accesses (mod/ref, frees) and its result. Its formals hold every
    /// call's arguments at once, so a copy or a store applied to them would mix the calls
    /// (every copy's source flowing to every copy's destination), which is what replacing
    /// the body avoids.
    pub(super) fn apply_body_model(&mut self, f: FuncId, entry: bool) {
        let func = &self.prog.functions[f as usize];
        let Some(Model::Known(effects)) = func.model else {
            return;
        };
        let call = CallSite {
            caller: f,
            callee: Callee::Direct(f),
            args: func.formals.clone(),
            ret: func.ret,
            line: 0,
            heap: None,
            arg_ptr: None,
            model: None,
        };
        let own: Vec<Effect> = effects
            .iter()
            .copied()
            .filter(|e| entry || crate::models::own_effect(e))
            .collect();
        self.calls.push(call.clone());
        let c = (self.calls.len() - 1) as CallId;
        self.apply_effects(c, &call, &own);
    }

    pub(super) fn apply_model(&mut self, c: CallId, call: &CallSite, model: Model) {
        let caller = call.caller as usize;
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
                    self.accesses[x as usize].push((
                        Access {
                            ptr: ext,
                            size: None,
                            write: true,
                        },
                        false,
                    ));
                    self.accesses[x as usize].push((
                        Access {
                            ptr: ext,
                            size: None,
                            write: false,
                        },
                        false,
                    ));
                    // Unknown code may free what escaped to it (a library's destroy call).
                    self.frees[x as usize].push(ext);
                }
                return;
            }
        };
        self.apply_effects(c, call, effects);
    }

    /// The effects of a known model at call c.
    fn apply_effects(&mut self, c: CallId, call: &CallSite, effects: &[Effect]) {
        let caller = call.caller as usize;
        let arg = |i: usize| call.args.get(i).copied().flatten();
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
                        self.accesses[caller].push((
                            Access {
                                ptr: r,
                                size: None,
                                write: true,
                            },
                            false,
                        ));
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
                Effect::Free(i) => {
                    if let Some(a) = arg(i) {
                        self.accesses[caller].push((
                            Access {
                                ptr: a,
                                size: None,
                                write: true,
                            },
                            false,
                        ));
                        self.frees[caller].push(a);
                    }
                }
                Effect::Symbolic(i) => {
                    if let Some(a) = arg(i) {
                        self.accesses[caller].push((
                            Access {
                                ptr: a,
                                size: None,
                                write: true,
                            },
                            false,
                        ));
                        // Every cell of the objects gets what `unknown` holds: itself.
                        let u = self.unknown_object();
                        let t = self.model_var(c, k as u32);
                        let ub = self.objs[u as usize].base;
                        self.add_pts(t, ub);
                        self.add_memcopy(a, t, None);
                    }
                }
                Effect::Mod(i) | Effect::Ref(i) | Effect::ModDeep(i) | Effect::RefDeep(i) => {
                    if let Some(a) = arg(i) {
                        let write = matches!(e, Effect::Mod(_) | Effect::ModDeep(_));
                        let deep = matches!(e, Effect::ModDeep(_) | Effect::RefDeep(_));
                        self.accesses[caller].push((
                            Access {
                                ptr: a,
                                size: None,
                                write,
                            },
                            deep,
                        ));
                    }
                }
                Effect::ModFrom(i) | Effect::RefFrom(i) => {
                    let write = matches!(e, Effect::ModFrom(_));
                    for a in call.args.iter().skip(i).flatten() {
                        self.accesses[caller].push((
                            Access {
                                ptr: *a,
                                size: None,
                                write,
                            },
                            false,
                        ));
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
}
