//! Instructions to constraints: `instruction` dispatches on the opcode, with a method per
//! family that takes more than a few lines (stack objects, memory accesses, address
//! arithmetic and casts).

use super::{value_name, Front};
use crate::facts::*;
use crate::layout::{LType, Layout};
use crate::site;
use anyhow::Result;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use rustc_hash::FxHashMap;

impl Front<'_> {
    /// An untyped allocation's result merged by phi or select `merge` (`hook ? hook(n) :
    /// malloc(n)`, libosip's `osip_malloc`, is a phi at -O0): the merge's first cast
    /// types it too. With several, the first incoming allocation is the one kept.
    unsafe fn through_merge(&mut self, merge: LLVMValueRef, v: LLVMValueRef) {
        if let Some(&h) = self.untyped_heap.get(&v) {
            self.untyped_heap.entry(merge).or_insert(h);
        }
    }

    pub(super) unsafe fn instruction(
        &mut self,
        i: LLVMValueRef,
        fname: &str,
        names: &FxHashMap<LLVMValueRef, String>,
    ) -> Result<()> {
        use LLVMOpcode::*;
        let op = LLVMGetInstructionOpcode(i);
        let ty = LLVMTypeOf(i);
        let ptrish = self.is_pointerish(ty);
        match op {
            LLVMAlloca => self.alloca(i, fname, names),
            LLVMLoad => self.load(i, ty, ptrish),
            LLVMStore => self.store(i),
            LLVMGetElementPtr => self.gep(i),
            LLVMBitCast | LLVMAddrSpaceCast => self.cast(i, ty, ptrish),
            LLVMPtrToInt => {
                if ptrish {
                    let d = self.def_var(i);
                    let s = self.var(LLVMGetOperand(i, 0));
                    self.copy(d, s);
                }
            }
            LLVMIntToPtr => self.int_to_ptr(i),
            LLVMAdd | LLVMSub | LLVMAnd | LLVMOr | LLVMXor => {
                if ptrish {
                    let d = self.def_var(i);
                    for k in 0..2 {
                        let s = self.var(LLVMGetOperand(i, k));
                        self.copy(d, s);
                    }
                }
            }
            LLVMPHI => {
                if ptrish {
                    let d = self.def_var(i);
                    for k in 0..LLVMCountIncoming(i) {
                        let v = LLVMGetIncomingValue(i, k);
                        self.through_merge(i, v);
                        let s = self.var(v);
                        self.copy(d, s);
                    }
                }
            }
            LLVMSelect => {
                if ptrish {
                    let d = self.def_var(i);
                    for k in 1..3 {
                        let v = LLVMGetOperand(i, k);
                        self.through_merge(i, v);
                        let s = self.var(v);
                        self.copy(d, s);
                    }
                }
            }
            LLVMExtractValue | LLVMExtractElement | LLVMFreeze => {
                if ptrish {
                    let d = self.def_var(i);
                    let s = self.var(LLVMGetOperand(i, 0));
                    self.copy(d, s);
                }
            }
            LLVMInsertValue | LLVMInsertElement | LLVMShuffleVector => {
                if ptrish {
                    let d = self.def_var(i);
                    for k in 0..2 {
                        let s = self.var(LLVMGetOperand(i, k));
                        self.copy(d, s);
                    }
                }
            }
            LLVMUnreachable => self.f().unreachable = true,
            LLVMResume => self.f().returns = true,
            LLVMRet => {
                self.f().returns = true;
                if LLVMGetNumOperands(i) > 0 {
                    let s = self.var(LLVMGetOperand(i, 0));
                    if let (Some(r), Some(s)) = (self.f().ret, s) {
                        self.push(Constraint::Copy { dst: r, src: s });
                    }
                }
            }
            LLVMCall | LLVMInvoke | LLVMCallBr => self.call(i, fname, ptrish)?,
            LLVMVAArg => self.va_arg(i),
            LLVMAtomicCmpXchg | LLVMAtomicRMW => self.atomic(i, op, ptrish),
            // Integers made from narrower integers or floats, or by multiplication, division,
            // remainder and shifts, carry no pointer (hashing an address does not make one).
            LLVMSExt | LLVMZExt | LLVMTrunc | LLVMFPToSI | LLVMFPToUI | LLVMMul | LLVMUDiv
            | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr | LLVMICmp
            | LLVMFCmp => {}
            LLVMLandingPad | LLVMCatchPad | LLVMCleanupPad | LLVMCatchSwitch => {
                self.prog.nonlocal_jumps = true;
                if ptrish {
                    self.unsupported("exception handling");
                }
            }
            _ => {
                if ptrish {
                    // A pointer from an instruction we do not model: conservatively, it may
                    // point wherever its operands point, at an unknown offset.
                    let name = format!("{:?}", op).trim_start_matches("LLVM").to_string();
                    self.unsupported(&name);
                    let d = self.def_var(i);
                    for k in 0..LLVMGetNumOperands(i) as u32 {
                        if let Some(s) = self.var(LLVMGetOperand(i, k)) {
                            self.push(Constraint::Gep {
                                dst: d,
                                src: s,
                                gep: Gep::unknown(),
                            });
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// An `alloca`: a stack object (`stack:F:VAR`, VAR from `llvm.dbg.declare`).
    unsafe fn alloca(
        &mut self,
        i: LLVMValueRef,
        fname: &str,
        names: &FxHashMap<LLVMValueRef, String>,
    ) {
        let name = names.get(&i).cloned().unwrap_or_else(|| value_name(i));
        let aty = LLVMGetAllocatedType(i);
        let count = LLVMGetOperand(i, 0);
        let layout = if !LLVMIsAConstantInt(count).is_null() && LLVMConstIntGetZExtValue(count) > 1
        {
            let n = LLVMConstIntGetZExtValue(count);
            self.ltype(aty).map(|e| {
                let tn = format!("[{} x {}]", n, Self::type_name(aty));
                self.prog.add_layout(Layout::new(
                    tn,
                    LType::Array {
                        count: n,
                        elem: Box::new(e),
                    },
                ))
            })
        } else {
            // A variable count is an array of the type: the implicit array covers it.
            self.layout(aty)
        };
        let obj = self.prog.add_object(Object {
            label: site::stack(fname, &name).into(),
            kind: ObjKind::Stack,
            layout,
            owner: Some(self.cur),
            func: None,
            readonly: false,
        });
        if names.contains_key(&i) && LLVMGetTypeKind(aty) == LLVMTypeKind::LLVMPointerTypeKind {
            self.prog.source_vars.push(SourceVar {
                name: format!("{}::{}", fname, name),
                obj,
            });
        }
        self.prog.site_objects.insert(i as usize, obj);
        let v = self.def_var(i);
        self.push(Constraint::AddrOf {
            dst: v,
            obj,
            offset: 0,
        });
    }

    /// `load`: a read access, and a load constraint if the value may carry a pointer.
    unsafe fn load(&mut self, i: LLVMValueRef, ty: LLVMTypeRef, ptrish: bool) {
        let size = self.store_size(ty);
        if let Some(p) = self.var(LLVMGetOperand(i, 0)) {
            self.f().accesses.push(Access {
                ptr: p,
                size: Some(size),
                write: false,
            });
            if ptrish {
                let d = self.def_var(i);
                self.push(Constraint::Load {
                    dst: d,
                    ptr: p,
                    size,
                });
            }
        }
    }

    /// `store`: a write access (and a WIT write), and a store constraint.
    unsafe fn store(&mut self, i: LLVMValueRef) {
        let val = LLVMGetOperand(i, 0);
        let size = self.store_size(LLVMTypeOf(val));
        if let Some(p) = self.var(LLVMGetOperand(i, 1)) {
            self.f().accesses.push(Access {
                ptr: p,
                size: Some(size),
                write: true,
            });
            self.write(i, p, Some(size), WriteKind::Store);
            if let Some(s) = self.var(val) {
                self.push(Constraint::Store {
                    ptr: p,
                    src: s,
                    size,
                });
            }
        }
    }

    /// `getelementptr`: a copy at offset 0, else an offset (unknown if not constant).
    unsafe fn gep(&mut self, i: LLVMValueRef) {
        let d = self.def_var(i);
        let src = self.var(LLVMGetOperand(i, 0));
        if let Some(s) = src {
            match self.gep_of(i) {
                Some(g) if g == Gep::default() => self.push(Constraint::Copy { dst: d, src: s }),
                Some(g) => self.push(Constraint::Gep {
                    dst: d,
                    src: s,
                    gep: g,
                }),
                None => {
                    self.unsupported("gep with variable struct index");
                    self.push(Constraint::Gep {
                        dst: d,
                        src: s,
                        gep: Gep::unknown(),
                    })
                }
            }
        }
    }

    /// `bitcast` and `addrspacecast`: a copy, and the type of an untyped allocation.
    unsafe fn cast(&mut self, i: LLVMValueRef, ty: LLVMTypeRef, ptrish: bool) {
        let src = LLVMGetOperand(i, 0);
        if let Some(&h) = self.untyped_heap.get(&src) {
            // Section 5: the first cast of an allocation's result gives its type
            // (the result itself, or a phi or select it flows into).
            self.untyped_heap.retain(|_, o| *o != h);
            if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMPointerTypeKind {
                let l = self.layout(LLVMGetElementType(ty));
                self.prog.objects[h as usize].layout = l;
            }
        }
        if ptrish {
            let d = self.def_var(i);
            let s = self.var(src);
            self.copy(d, s);
        }
    }

    /// `inttoptr`: a copy of a plain address, else an unknown offset into it.
    unsafe fn int_to_ptr(&mut self, i: LLVMValueRef) {
        let src = LLVMGetOperand(i, 0);
        let d = self.def_var(i);
        if let Some(s) = self.var(src) {
            if self.plain_address(src) {
                self.push(Constraint::Copy { dst: d, src: s });
            } else {
                // Integer arithmetic happened: the offset is unknown.
                self.push(Constraint::Gep {
                    dst: d,
                    src: s,
                    gep: Gep::unknown(),
                });
            }
        }
    }

    /// `va_arg`: a load from the variadic arguments' object.
    unsafe fn va_arg(&mut self, i: LLVMValueRef) {
        let d = self.def_var(i);
        if let Some((_, vv)) = self.f().varargs {
            self.push(Constraint::Load {
                dst: d,
                ptr: vv,
                size: 8,
            });
            self.f().accesses.push(Access {
                ptr: vv,
                size: None,
                write: false,
            });
        }
    }

    /// `cmpxchg` and `atomicrmw`: a load and a store through the same pointer.
    unsafe fn atomic(&mut self, i: LLVMValueRef, op: LLVMOpcode, ptrish: bool) {
        let (p, val) = if op == LLVMOpcode::LLVMAtomicCmpXchg {
            (0, 2)
        } else {
            (0, 1)
        };
        let v = LLVMGetOperand(i, val);
        let size = self.store_size(LLVMTypeOf(v));
        if let Some(p) = self.var(LLVMGetOperand(i, p)) {
            self.f().accesses.push(Access {
                ptr: p,
                size: Some(size),
                write: true,
            });
            self.f().accesses.push(Access {
                ptr: p,
                size: Some(size),
                write: false,
            });
            self.write(i, p, Some(size), WriteKind::Store);
            if let Some(s) = self.var(v) {
                self.push(Constraint::Store {
                    ptr: p,
                    src: s,
                    size,
                });
            }
            if ptrish {
                let d = self.def_var(i);
                self.push(Constraint::Load {
                    dst: d,
                    ptr: p,
                    size,
                });
            }
        }
    }
}
