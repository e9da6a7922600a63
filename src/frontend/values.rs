//! Values to variables: instruction and argument results, and constants (a constant
//! pointer is an object and a byte offset; other constant expressions carry their
//! operands' pointers); GEP offsets.

use super::{value_name, Front};
use crate::facts::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

impl Front<'_> {
    pub(super) fn fresh_var(&mut self) -> VarId {
        self.prog.new_var()
    }

    /// The variable of an instruction or argument result.
    pub(super) fn def_var(&mut self, v: LLVMValueRef) -> VarId {
        debug_assert!(unsafe { !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() });
        if let Some(&x) = self.vars.get(&v) {
            return x;
        }
        let x = self.prog.new_var();
        self.vars.insert(v, x);
        let name = format!(
            "{}:%{}",
            self.prog.functions[self.cur as usize].name,
            unsafe { value_name(v) }
        );
        self.prog.var_names.resize(x as usize, String::new());
        self.prog.var_names.push(name);
        x
    }

    /// The variable carrying value `v`'s pointers, or None if it carries none.
    pub(super) unsafe fn var(&mut self, v: LLVMValueRef) -> Option<VarId> {
        if let Some(&x) = self.vars.get(&v) {
            return Some(x);
        }
        if !self.is_pointerish(LLVMTypeOf(v)) {
            return None;
        }
        if !LLVMIsAInstruction(v).is_null() || !LLVMIsAArgument(v).is_null() {
            return Some(self.def_var(v));
        }
        if LLVMIsConstant(v) == 0 {
            return None;
        }
        if let Some((obj, off)) = self.const_target(v) {
            return Some(self.const_var(obj, off));
        }
        if !LLVMIsAConstantExpr(v).is_null()
            || !LLVMIsAConstantAggregateZero(v).is_null()
            || !LLVMIsAConstantStruct(v).is_null()
            || !LLVMIsAConstantArray(v).is_null()
            || !LLVMIsAConstantVector(v).is_null()
        {
            // Some other constant expression: it may carry the pointers of its operands.
            let n = LLVMGetNumOperands(v);
            let mut srcs = Vec::new();
            for i in 0..n {
                if let Some(s) = self.var(LLVMGetOperand(v, i as u32)) {
                    srcs.push(s);
                }
            }
            if srcs.is_empty() {
                return None;
            }
            let x = self.fresh_var();
            let unknown_offset = !LLVMIsAConstantExpr(v).is_null()
                && LLVMGetConstOpcode(v) == LLVMOpcode::LLVMIntToPtr;
            for s in srcs {
                let c = if unknown_offset {
                    Constraint::Gep {
                        dst: x,
                        src: s,
                        gep: Gep::unknown(),
                    }
                } else {
                    Constraint::Copy { dst: x, src: s }
                };
                self.push_global(c);
            }
            self.vars.insert(v, x);
            return Some(x);
        }
        None
    }

    /// Constraints of constants are not tied to a function: put them in every entry's reach
    /// by attaching them to a synthetic list activated with the program.
    pub(super) fn push_global(&mut self, c: Constraint) {
        self.prog.init_constraints.push(c);
    }

    pub(super) fn const_var(&mut self, obj: ObjId, off: i64) -> VarId {
        if let Some(&x) = self.const_vars.get(&(obj, off)) {
            return x;
        }
        let x = self.fresh_var();
        self.push_global(Constraint::AddrOf {
            dst: x,
            obj,
            offset: off,
        });
        self.const_vars.insert((obj, off), x);
        x
    }

    /// A constant pointer as (object, byte offset): `@g`, `gep(@g, ...)`, casts of those.
    pub(super) unsafe fn const_target(&mut self, v: LLVMValueRef) -> Option<(ObjId, i64)> {
        if let Some(&o) = self.globals.get(&v) {
            return Some((o, 0));
        }
        if let Some(&f) = self.funcs.get(&v) {
            return Some((self.prog.functions[f as usize].obj, 0));
        }
        if LLVMIsAConstantExpr(v).is_null() {
            return None;
        }
        match LLVMGetConstOpcode(v) {
            LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMPtrToInt => {
                self.const_target(LLVMGetOperand(v, 0))
            }
            LLVMOpcode::LLVMIntToPtr => {
                let op = LLVMGetOperand(v, 0);
                if !LLVMIsAConstantExpr(op).is_null()
                    && LLVMGetConstOpcode(op) == LLVMOpcode::LLVMPtrToInt
                {
                    self.const_target(op)
                } else {
                    None
                }
            }
            LLVMOpcode::LLVMGetElementPtr => {
                let (o, off) = self.const_target(LLVMGetOperand(v, 0))?;
                let g = self.gep_of(v)?;
                if !g.strides.is_empty() {
                    return None;
                }
                Some((o, off + g.offset))
            }
            _ => None,
        }
    }

    /// The byte offset (and variable strides) of a GEP instruction or constant expression.
    pub(super) unsafe fn gep_of(&mut self, v: LLVMValueRef) -> Option<Gep> {
        let mut ty = LLVMGetGEPSourceElementType(v);
        let n = LLVMGetNumOperands(v) as u32;
        let mut g = Gep::default();
        for i in 1..n {
            let idx = LLVMGetOperand(v, i);
            let kind = LLVMGetTypeKind(ty);
            if i > 1 && kind == LLVMTypeKind::LLVMStructTypeKind {
                if LLVMIsAConstantInt(idx).is_null() {
                    return None;
                }
                let k = LLVMConstIntGetZExtValue(idx) as u32;
                g.offset += LLVMOffsetOfElement(self.td, ty, k) as i64;
                ty = LLVMStructGetTypeAtIndex(ty, k);
                continue;
            }
            // The first index walks over the source type; later ones over array elements.
            let elem = if i == 1 { ty } else { LLVMGetElementType(ty) };
            let stride = LLVMABISizeOfType(self.td, elem);
            if !LLVMIsAConstantInt(idx).is_null() {
                g.offset += LLVMConstIntGetSExtValue(idx) * stride as i64;
            } else {
                // A variable index (a vector of indices too): any multiple of the stride.
                g.strides.push(stride);
            }
            ty = elem;
        }
        Some(g)
    }
}
