//! Calls: call sites (direct, indirect, inline assembly), allocation sites, library
//! models (`syscall` by number), and intrinsics (memcpy, memset, va_start...).

use super::Front;
use crate::facts::*;
use crate::models::{model_for, syscall_model, Model};
use crate::site;
use anyhow::Result;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::ffi::CStr;

impl Front<'_> {
    pub(super) unsafe fn call(&mut self, i: LLVMValueRef, fname: &str, ptrish: bool) -> Result<()> {
        let callee = LLVMGetCalledValue(i);
        let nargs = LLVMGetNumArgOperands(i);
        let line = LLVMGetDebugLocLine(i);
        let target = self.const_function(callee);
        if let Some(g) = target {
            let gname = self.prog.functions[g as usize].name.clone();
            if gname.starts_with("llvm.") {
                return self.intrinsic(i, &gname, ptrish);
            }
        }
        let mut args = Vec::with_capacity(nargs as usize);
        let mut arg_ptr = Vec::with_capacity(nargs as usize);
        for k in 0..nargs {
            arg_ptr.push(self.is_pointerish(LLVMTypeOf(LLVMGetOperand(i, k))));
        }
        for k in 0..nargs {
            args.push(self.var(LLVMGetOperand(i, k)));
        }
        let ret = if ptrish { Some(self.def_var(i)) } else { None };
        let mut call_model = None;
        let (callee, allocates) = match target {
            Some(g) => {
                let gname = self.prog.functions[g as usize].name.clone();
                let mut allocates = false;
                if self.opts.allocators.contains(&gname) && self.prog.functions[g as usize].defined
                {
                    // A user-declared allocator with a body: calls are allocation sites.
                    self.prog.functions[g as usize].model =
                        Some(model_for(&gname, &self.opts.allocators));
                }
                if gname == "syscall" && !self.prog.functions[g as usize].defined && nargs > 0 {
                    call_model = self.syscall_model(LLVMGetOperand(i, 0));
                }
                if gname == "klee_make_symbolic"
                    && !self.prog.functions[g as usize].defined
                    && nargs > 0
                    && Self::holds_pointers(LLVMGetOperand(i, 0))
                {
                    call_model = Some(Model::Known(crate::models::SYMBOLIC_POINTERS));
                }
                if let Some(m) = call_model.or(self.prog.functions[g as usize].model) {
                    allocates = m.allocates();
                    if m == Model::Unknown {
                        *self.prog.stats.unknown_externals.entry(gname).or_insert(0) += 1;
                    }
                }
                if self.prog.functions[g as usize].defined {
                    self.vararg_calls.push((i as usize, g));
                }
                (Callee::Direct(g), allocates)
            }
            None if !LLVMIsAInlineAsm(callee).is_null() => {
                // Inline assembly: like an unknown external function.
                self.unsupported("inline asm");
                let v = self.fresh_var();
                for a in args.iter().flatten() {
                    self.push(Constraint::Escape { src: *a });
                }
                if let Some(r) = ret {
                    self.push(Constraint::Copy { dst: r, src: v });
                }
                return Ok(());
            }
            None => match self.var(callee) {
                Some(v) => (Callee::Indirect(v), false),
                None => return Ok(()),
            },
        };
        let heap = if allocates {
            let o = self.prog.add_object(Object {
                label: site::heap(fname, line).into(),
                kind: ObjKind::Heap,
                layout: None,
                owner: None,
                func: None,
                readonly: false,
            });
            self.untyped_heap.insert(i, o);
            self.prog.site_objects.insert(i as usize, o);
            Some(o)
        } else {
            None
        };
        // The arguments a library model writes through are writes of this call (WIT).
        if let Callee::Direct(g) = &callee {
            let g = *g;
            if let Some(Model::Known(effects)) =
                call_model.or(self.prog.functions[g as usize].model)
            {
                for e in effects {
                    let from = match *e {
                        crate::models::Effect::Mod(k)
                        | crate::models::Effect::Symbolic(k)
                        | crate::models::Effect::ModDeep(k)
                        | crate::models::Effect::Free(k) => k..k + 1,
                        crate::models::Effect::ModFrom(k) => k..args.len(),
                        _ => continue,
                    };
                    for a in args
                        .get(from)
                        .unwrap_or_default()
                        .iter()
                        .flatten()
                        .copied()
                        .collect::<Vec<_>>()
                    {
                        self.write(i, a, None, WriteKind::Library);
                    }
                }
            }
        }
        let id = self.prog.calls.len() as CallId;
        self.prog.calls.push(CallSite {
            caller: self.cur,
            callee,
            args,
            ret,
            line,
            heap,
            arg_ptr: Some(arg_ptr),
            model: call_model,
        });
        self.f().calls.push(id);
        Ok(())
    }

    /// The function a callee operand names (through casts), if it is constant.
    unsafe fn const_function(&mut self, v: LLVMValueRef) -> Option<FuncId> {
        if let Some(&f) = self.funcs.get(&v) {
            return Some(f);
        }
        if !LLVMIsAConstantExpr(v).is_null() && LLVMGetConstOpcode(v) == LLVMOpcode::LLVMBitCast {
            return self.const_function(LLVMGetOperand(v, 0));
        }
        if !LLVMIsAGlobalAlias(v).is_null() {
            return self.const_function(LLVMAliasGetAliasee(v));
        }
        None
    }

    /// Whether the object `p` points to, as the code types it before casting it to
    /// `klee_make_symbolic`'s `void*`, has pointer-typed cells: input written there is
    /// addresses the program may follow (`Effect::Symbolic`). Input into bytes and
    /// integers is data: a static analysis assumes no program forges addresses from it
    /// (treating every input buffer as addresses made SQLite's whole-program sets name
    /// `unknown` in 1,835 of its 2,254 functions, through its one-site allocator's blob).
    unsafe fn holds_pointers(p: LLVMValueRef) -> bool {
        let mut v = p;
        loop {
            let cast = (!LLVMIsABitCastInst(v).is_null())
                || (!LLVMIsAConstantExpr(v).is_null()
                    && LLVMGetConstOpcode(v) == LLVMOpcode::LLVMBitCast);
            if !cast {
                break;
            }
            v = LLVMGetOperand(v, 0);
        }
        let ty = LLVMTypeOf(v);
        if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMPointerTypeKind {
            return false;
        }
        unsafe fn has(t: LLVMTypeRef, depth: u32) -> bool {
            use llvm_sys::LLVMTypeKind::*;
            if depth > 32 {
                return true;
            }
            match LLVMGetTypeKind(t) {
                LLVMPointerTypeKind => true,
                LLVMArrayTypeKind | LLVMVectorTypeKind => has(LLVMGetElementType(t), depth + 1),
                LLVMStructTypeKind => (0..LLVMCountStructElementTypes(t))
                    .any(|k| has(LLVMStructGetTypeAtIndex(t, k), depth + 1)),
                _ => false,
            }
        }
        has(LLVMGetElementType(ty), 0)
    }

    /// The model of `syscall(nr, ...)` for a constant `nr`, on x86_64 (numbers differ by
    /// architecture); None keeps the unknown-function policy.
    unsafe fn syscall_model(&self, nr: LLVMValueRef) -> Option<Model> {
        let triple = CStr::from_ptr(LLVMGetTarget(self.m.module)).to_string_lossy();
        if !triple.starts_with("x86_64") {
            return None;
        }
        Self::const_len(nr).and_then(syscall_model)
    }

    /// Whether integer `v` is an address unchanged: `ptrtoint p`, or KLEE's
    /// `klee_get_valuel` of one (it returns the argument's value, so the POSIX runtime's
    /// `inttoptr(klee_get_valuel(ptrtoint p))` is `p`, not an unknown offset into it).
    pub(super) unsafe fn plain_address(&mut self, v: LLVMValueRef) -> bool {
        if !LLVMIsAConstantExpr(v).is_null() {
            return LLVMGetConstOpcode(v) == LLVMOpcode::LLVMPtrToInt;
        }
        if LLVMIsAInstruction(v).is_null() {
            return false;
        }
        match LLVMGetInstructionOpcode(v) {
            LLVMOpcode::LLVMPtrToInt => true,
            LLVMOpcode::LLVMCall if LLVMGetNumArgOperands(v) == 1 => {
                let Some(g) = self.const_function(LLVMGetCalledValue(v)) else {
                    return false;
                };
                let f = &self.prog.functions[g as usize];
                !f.defined
                    && matches!(
                        f.name.as_str(),
                        "klee_get_valuel" | "klee_get_valuell" | "klee_get_value_i64"
                    )
                    && self.plain_address(LLVMGetOperand(v, 0))
            }
            _ => false,
        }
    }

    unsafe fn const_len(v: LLVMValueRef) -> Option<u64> {
        if LLVMIsAConstantInt(v).is_null() {
            None
        } else {
            Some(LLVMConstIntGetZExtValue(v))
        }
    }

    unsafe fn intrinsic(&mut self, i: LLVMValueRef, name: &str, ptrish: bool) -> Result<()> {
        let arg = |s: &mut Self, k: u32| s.var(LLVMGetOperand(i, k));
        let base = name.split('.').take(2).collect::<Vec<_>>().join(".");
        match base.as_str() {
            "llvm.memcpy" | "llvm.memmove" => {
                let len = Self::const_len(LLVMGetOperand(i, 2));
                let (d, s) = (arg(self, 0), arg(self, 1));
                if let Some(d) = d {
                    self.f().accesses.push(Access {
                        ptr: d,
                        size: len,
                        write: true,
                    });
                    self.write(i, d, len, WriteKind::Intrinsic);
                }
                if let Some(s) = s {
                    self.f().accesses.push(Access {
                        ptr: s,
                        size: len,
                        write: false,
                    });
                }
                if let (Some(d), Some(s)) = (d, s) {
                    self.push(Constraint::MemCopy {
                        dst: d,
                        src: s,
                        size: len,
                    });
                }
            }
            "llvm.memset" => {
                let len = Self::const_len(LLVMGetOperand(i, 2));
                if let Some(d) = arg(self, 0) {
                    self.f().accesses.push(Access {
                        ptr: d,
                        size: len,
                        write: true,
                    });
                    self.write(i, d, len, WriteKind::Intrinsic);
                }
            }
            "llvm.va_start" if self.opts.svf_blind_spots => {
                *self
                    .prog
                    .stats
                    .svf_blind_spots
                    .entry("va_start".into())
                    .or_insert(0) += 1;
            }
            "llvm.va_start" => {
                if let (Some(ap), Some((_, vv))) = (arg(self, 0), self.f().varargs) {
                    // The va_list's save areas point to the variadic arguments.
                    self.push(Constraint::Store {
                        ptr: ap,
                        src: vv,
                        size: 24,
                    });
                    self.f().accesses.push(Access {
                        ptr: ap,
                        size: Some(24),
                        write: true,
                    });
                }
            }
            "llvm.va_copy" => {
                if let (Some(d), Some(s)) = (arg(self, 0), arg(self, 1)) {
                    self.push(Constraint::MemCopy {
                        dst: d,
                        src: s,
                        size: Some(24),
                    });
                    self.f().accesses.push(Access {
                        ptr: d,
                        size: Some(24),
                        write: true,
                    });
                    self.f().accesses.push(Access {
                        ptr: s,
                        size: Some(24),
                        write: false,
                    });
                }
            }
            "llvm.dbg" | "llvm.lifetime" | "llvm.va_end" | "llvm.assume" | "llvm.expect"
            | "llvm.stacksave" | "llvm.stackrestore" | "llvm.objectsize" | "llvm.prefetch"
            | "llvm.trap" | "llvm.debugtrap" | "llvm.invariant" | "llvm.donothing" => {}
            _ => {
                if ptrish {
                    // Pointer-returning intrinsics (ptrmask, launder.invariant.group, ...)
                    // return a pointer derived from their pointer arguments.
                    let d = self.def_var(i);
                    for k in 0..LLVMGetNumArgOperands(i) {
                        if let Some(s) = arg(self, k) {
                            self.push(Constraint::Copy { dst: d, src: s });
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
