//! Debug information: where an instruction is in the source, and the source names of
//! stack variables (`llvm.dbg.declare`).

use super::{value_name, Front};
use crate::facts::*;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use rustc_hash::FxHashMap;

impl Front<'_> {
    /// Where instruction `i` is in the source (debug information; zeros without it).
    pub(super) unsafe fn src_loc(&mut self, i: LLVMValueRef) -> SrcLoc {
        let line = LLVMGetDebugLocLine(i);
        if line == 0 {
            return SrcLoc::default();
        }
        let mut len = 0;
        let p = LLVMGetDebugLocFilename(i, &mut len);
        let name = if p.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
                .into_owned()
        };
        let file = match self.files.get(&name) {
            Some(&f) => f,
            None => {
                let f = self.prog.files.len() as u32;
                self.prog.files.push(name.clone());
                self.files.insert(name, f);
                f
            }
        };
        SrcLoc {
            file,
            line,
            col: LLVMGetDebugLocColumn(i),
        }
    }

    pub(super) unsafe fn dbg_names(&mut self, f: LLVMValueRef) -> FxHashMap<LLVMValueRef, String> {
        let mut names = FxHashMap::default();
        let mut bb = LLVMGetFirstBasicBlock(f);
        while !bb.is_null() {
            let mut i = LLVMGetFirstInstruction(bb);
            while !i.is_null() {
                if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMCall {
                    let callee = LLVMGetCalledValue(i);
                    if !callee.is_null() && value_name(callee) == "llvm.dbg.declare" {
                        if let (Some(a), Some(n)) = (
                            md_value(LLVMGetOperand(i, 0)),
                            md_var_name(LLVMGetOperand(i, 1)),
                        ) {
                            names.entry(a).or_insert(n);
                        }
                    }
                }
                i = LLVMGetNextInstruction(i);
            }
            bb = LLVMGetNextBasicBlock(bb);
        }
        names
    }
}

/// The value wrapped by `metadata <value>` (a dbg.declare address).
unsafe fn md_value(v: LLVMValueRef) -> Option<LLVMValueRef> {
    if LLVMIsAMDNode(v).is_null() {
        return None;
    }
    if LLVMGetMDNodeNumOperands(v) != 1 {
        return None;
    }
    let mut out = [std::ptr::null_mut(); 1];
    LLVMGetMDNodeOperands(v, out.as_mut_ptr());
    (!out[0].is_null() && LLVMIsAMDNode(out[0]).is_null() && LLVMIsAMDString(out[0]).is_null())
        .then_some(out[0])
}

/// The name of a DILocalVariable (its operand 1 is the name string).
unsafe fn md_var_name(v: LLVMValueRef) -> Option<String> {
    if LLVMIsAMDNode(v).is_null() {
        return None;
    }
    let n = LLVMGetMDNodeNumOperands(v);
    if n < 2 {
        return None;
    }
    let mut ops = vec![std::ptr::null_mut(); n as usize];
    LLVMGetMDNodeOperands(v, ops.as_mut_ptr());
    let s = ops[1];
    if s.is_null() {
        return None;
    }
    let mut len = 0u32;
    let p = LLVMGetMDString(s, &mut len);
    if p.is_null() {
        return None;
    }
    Some(
        String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
            .into_owned(),
    )
}
