//! Escape closure: what the external node `ext` points to has escaped into unknown code,
//! which may read and write its fields and call it if it is a function. Applied as the
//! complex constraint of `ext`, so it grows with the sets like any other.

use super::Solver;
use crate::facts::*;

impl<'p> Solver<'p> {
    /// Objects newly pointed to by `ext` (`delta`) escape: their fields point to and from
    /// everything escaped (read-only ones are not written), and escaped functions get a
    /// call from unknown code. Returns whether an object escaped.
    pub(super) fn close_escaped(&mut self, delta: &super::PtsSet) -> bool {
        let mut grew = false;
        for loc in delta.iter() {
            let o = self.node_obj[loc as usize];
            if self.escaped[o as usize] {
                continue;
            }
            self.escaped[o as usize] = true;
            let ext = self.ext;
            let (base, nf) = (self.objs[o as usize].base, self.objs[o as usize].nfields);
            let nf = if self.objs[o as usize].is_code() {
                0
            } else {
                nf
            };
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
        grew
    }
}
