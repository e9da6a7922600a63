//! Functions: their objects and models, then each body: formals, return value, the
//! variadic arguments' object, main's environment, and the walk over its instructions.

use super::{value_name, Front};
use crate::facts::*;
use crate::models::{body_model, model_for};
use crate::site;
use anyhow::Result;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMLinkage;

impl Front<'_> {
    /// Every function's object and model (bodies are walked later, by `function`).
    pub(super) unsafe fn declare_functions(&mut self, module: LLVMModuleRef) {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            let name = value_name(f);
            let id = self.prog.functions.len() as FuncId;
            let obj = self.prog.add_object(Object {
                label: site::func(&name).into(),
                kind: ObjKind::Func,
                layout: None,
                owner: None,
                func: Some(id),
                readonly: false,
            });
            let defined = LLVMCountBasicBlocks(f) > 0;
            let model = if !defined {
                Some(model_for(&name, &self.opts.allocators))
            } else if !matches!(
                LLVMGetLinkage(f),
                LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage
            ) {
                // A libc function the module defines (KLEE links uclibc): see BODY_REPLACED.
                body_model(&name)
            } else {
                None
            };
            let ret_cells_hold_pointers = !defined && self.ret_cells_hold_pointers(f);
            self.prog.functions.push(Function {
                name,
                defined,
                obj,
                model,
                ret_cells_hold_pointers,
                ..Default::default()
            });
            self.funcs.insert(f, id);
            self.prog.site_objects.insert(f as usize, obj);
            self.prog.site_functions.insert(f as usize, id);
            if defined {
                self.prog.stats.defined_functions += 1;
            } else {
                self.prog.stats.declared_functions += 1;
            }
            f = LLVMGetNextFunction(f);
        }
    }

    pub(super) unsafe fn function(&mut self, f: LLVMValueRef) -> Result<()> {
        let fname = self.prog.functions[self.cur as usize].name.clone();
        let fty = LLVMGlobalGetValueType(f);
        let nparams = LLVMCountParams(f);
        let mut formals = Vec::with_capacity(nparams as usize);
        for i in 0..nparams {
            let p = LLVMGetParam(f, i);
            formals.push(if self.is_pointerish(LLVMTypeOf(p)) {
                Some(self.def_var(p))
            } else {
                None
            });
        }
        let ret = if self.is_pointerish(LLVMGetReturnType(fty)) {
            Some(self.fresh_var())
        } else {
            None
        };
        let varargs = if LLVMIsFunctionVarArg(fty) != 0 {
            let o = self.prog.add_object(Object {
                label: site::stack(&fname, "...").into(),
                kind: ObjKind::Stack,
                layout: None,
                owner: Some(self.cur),
                func: None,
                readonly: false,
            });
            Some((o, self.fresh_var()))
        } else {
            None
        };
        {
            let func = self.f();
            func.formals = formals;
            func.ret = ret;
            func.varargs = varargs;
        }
        if fname == "main" {
            self.main_environment(f);
        }
        let names = self.dbg_names(f);
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                self.prog.stats.instructions += 1;
                self.instruction(i, &fname, &names)?;
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        Ok(())
    }

    /// `argv` and `envp` of main point into one field-insensitive object standing for the
    /// strings the loader sets up before main (`heap:main:0`), which points to itself.
    unsafe fn main_environment(&mut self, f: LLVMValueRef) {
        let params: Vec<_> = (1..LLVMCountParams(f).min(3))
            .map(|i| LLVMGetParam(f, i))
            .collect();
        if params.is_empty() {
            return;
        }
        let env = self.prog.add_object(Object {
            label: site::heap("main", 0).into(),
            kind: ObjKind::Heap,
            layout: None,
            owner: None,
            func: None,
            readonly: false,
        });
        self.prog.init.push((env, 0, env, 0));
        for p in params {
            if let Some(v) = self.var(p) {
                self.push(Constraint::AddrOf {
                    dst: v,
                    obj: env,
                    offset: 0,
                });
            }
        }
    }
}
