//! Globals: their objects, aliases, and the pointers in their initialisers (the initial
//! points-to graph).

use super::{value_name, Front};
use crate::facts::*;
use crate::site;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::LLVMTypeKind;

/// Where an initialiser's pointer sits, for `svf_blind_spots`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum InitPlace {
    Scalar,
    Struct,
    Array,
}

impl Front<'_> {
    /// Every global's object (and pointer-typed globals as source variables), then
    /// aliases as other names of their aliasees' objects.
    pub(super) unsafe fn declare_globals(&mut self, module: LLVMModuleRef) {
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            let name = value_name(g);
            let ty = LLVMGlobalGetValueType(g);
            let layout = self.global_layout(ty);
            let obj = self.prog.add_object(Object {
                label: site::global(&name).into(),
                kind: ObjKind::Global,
                layout,
                owner: None,
                func: None,
                readonly: LLVMIsGlobalConstant(g) != 0,
            });
            self.globals.insert(g, obj);
            self.prog.site_objects.insert(g as usize, obj);
            if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind {
                self.prog.source_vars.push(SourceVar {
                    name: format!("::{}", name),
                    obj,
                });
            }
            g = LLVMGetNextGlobal(g);
        }
        let mut a = LLVMGetFirstGlobalAlias(module);
        while !a.is_null() {
            // An alias is another name for its aliasee's object.
            if let Some((obj, _)) = self.const_target(LLVMAliasGetAliasee(a)) {
                self.globals.insert(a, obj);
            }
            a = LLVMGetNextGlobalAlias(a);
        }
    }

    /// The pointers in every global's initialiser.
    pub(super) unsafe fn initialisers(&mut self, module: LLVMModuleRef) {
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            let init = LLVMGetInitializer(g);
            if !init.is_null() {
                let obj = self.globals[&g];
                self.walk_init(obj, init, 0, InitPlace::Scalar);
            }
            g = LLVMGetNextGlobal(g);
        }
    }

    /// Pointer constants inside a global's initialiser, at byte offset `off`.
    unsafe fn walk_init(&mut self, obj: ObjId, c: LLVMValueRef, off: i64, place: InitPlace) {
        let t = LLVMTypeOf(c);
        if !self.is_pointerish(t)
            || !LLVMIsAConstantAggregateZero(c).is_null()
            || !LLVMIsAUndefValue(c).is_null()
        {
            return;
        }
        match LLVMGetTypeKind(t) {
            LLVMTypeKind::LLVMStructTypeKind => {
                for i in 0..LLVMGetNumOperands(c) as u32 {
                    let eo = LLVMOffsetOfElement(self.td, t, i) as i64;
                    let inner = if place == InitPlace::Array {
                        place
                    } else {
                        InitPlace::Struct
                    };
                    self.walk_init(obj, LLVMGetOperand(c, i), off + eo, inner);
                }
            }
            LLVMTypeKind::LLVMArrayTypeKind | LLVMTypeKind::LLVMVectorTypeKind => {
                let es = LLVMABISizeOfType(self.td, LLVMGetElementType(t)) as i64;
                if !LLVMIsAConstantDataSequential(c).is_null() {
                    return; // only ints and floats
                }
                for i in 0..LLVMGetNumOperands(c) as u32 {
                    self.walk_init(
                        obj,
                        LLVMGetOperand(c, i),
                        off + i as i64 * es,
                        InitPlace::Array,
                    );
                }
            }
            _ => {
                if self.opts.svf_blind_spots
                    && (place == InitPlace::Array || (place == InitPlace::Struct && off == 0))
                {
                    let what = if place == InitPlace::Array {
                        "array initialiser"
                    } else {
                        "struct initialiser at offset 0"
                    };
                    *self
                        .prog
                        .stats
                        .svf_blind_spots
                        .entry(what.into())
                        .or_insert(0) += 1;
                    return;
                }
                if let Some((t, toff)) = self.const_target(c) {
                    self.prog.init.push((obj, off, t, toff));
                } else if let Some(v) = self.var(c) {
                    // A pointer computed by a constant expression we cannot fold.
                    let p = self.const_var(obj, off);
                    self.push_global(Constraint::Store {
                        ptr: p,
                        src: v,
                        size: self.ptr_bits as u64 / 8,
                    });
                }
            }
        }
    }
}
