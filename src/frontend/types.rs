//! Types: layouts of LLVM types (`layout.rs`), which types carry pointers, and the
//! names of types as snapshots write and read them.

use super::{take_message, Front, Module};
use crate::facts::*;
use crate::layout::{LType, Layout};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::LLVMTypeKind;
use std::ffi::{CStr, CString};

impl Front<'_> {
    pub(super) unsafe fn ltype(&mut self, t: LLVMTypeRef) -> Option<LType> {
        ltype_of(self.td, t)
    }

    pub(super) unsafe fn type_name(t: LLVMTypeRef) -> String {
        // A named struct prints as its whole definition: use its name.
        if LLVMGetTypeKind(t) == LLVMTypeKind::LLVMStructTypeKind {
            let n = LLVMGetStructName(t);
            if !n.is_null() {
                return CStr::from_ptr(n).to_string_lossy().into_owned();
            }
        }
        let s = take_message(LLVMPrintTypeToString(t));
        s.trim_start_matches('%').to_string()
    }

    /// Layout of a type; None for types without a known body (then: field-insensitive).
    pub(super) unsafe fn layout(&mut self, t: LLVMTypeRef) -> Option<LayoutId> {
        if let Some(l) = self.layouts.get(&t) {
            return *l;
        }
        let l = self.ltype(t).map(|lt| {
            let name = Self::type_name(t);
            self.prog.add_layout(Layout::new(name, lt))
        });
        self.layouts.insert(t, l);
        l
    }

    /// The layout of a global of type `t`. A literal struct is the shape of an
    /// initialiser, not of the C type: clang writes `short t[185] = {1, ..., 0, 0}` as
    /// `<{ [101 x i16], [84 x i16] }>`, and the code indexes it as `[185 x i16]` (found by
    /// --pspa-check on SQLite's parser tables: an index past 100 left "field 0"). Its
    /// fields say nothing about how the code moves in it: when every leaf has one type it
    /// is that array, else it is field-insensitive.
    pub(super) unsafe fn global_layout(&mut self, t: LLVMTypeRef) -> Option<LayoutId> {
        if !contains_literal_struct(t) {
            return self.layout(t);
        }
        let mut leaves = Vec::new();
        leaf_types(t, 1, &mut leaves);
        let first = leaves.first()?.0;
        if leaves.iter().any(|&(e, _)| e != first)
            || LLVMGetTypeKind(first) == LLVMTypeKind::LLVMStructTypeKind
        {
            return None;
        }
        let count: u64 = leaves.iter().map(|&(_, n)| n).sum();
        let elem_size = LLVMABISizeOfType(self.td, first);
        if count * elem_size != LLVMABISizeOfType(self.td, t) {
            return None; // padding between the pieces: not one array
        }
        let arr = LLVMArrayType(first, count as u32);
        self.layout(arr)
    }

    /// Whether values of this type can carry a pointer: pointers, pointer-sized integers
    /// (ptrtoint, unions, coerced arguments) and aggregates containing them.
    pub(super) unsafe fn is_pointerish(&mut self, t: LLVMTypeRef) -> bool {
        use LLVMTypeKind::*;
        if let Some(&b) = self.pointerish.get(&t) {
            return b;
        }
        let b = match LLVMGetTypeKind(t) {
            LLVMPointerTypeKind => true,
            LLVMIntegerTypeKind => LLVMGetIntTypeWidth(t) == self.ptr_bits,
            LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                (0..n).any(|i| self.is_pointerish(LLVMStructGetTypeAtIndex(t, i)))
            }
            LLVMArrayTypeKind | LLVMVectorTypeKind => self.is_pointerish(LLVMGetElementType(t)),
            _ => false,
        };
        self.pointerish.insert(t, b);
        b
    }

    /// Whether what function `f` returns points to memory that may hold a pointer: its
    /// pointee carries one (`is_pointerish`), or is bytes (`void *`) or has no body (an
    /// opaque struct). A non-pointer result points nowhere.
    pub(super) unsafe fn ret_cells_hold_pointers(&mut self, f: LLVMValueRef) -> bool {
        use LLVMTypeKind::*;
        let ret = LLVMGetReturnType(LLVMGlobalGetValueType(f));
        if LLVMGetTypeKind(ret) != LLVMPointerTypeKind {
            return false;
        }
        let pointee = LLVMGetElementType(ret);
        match LLVMGetTypeKind(pointee) {
            LLVMIntegerTypeKind if LLVMGetIntTypeWidth(pointee) == 8 => true,
            LLVMStructTypeKind if LLVMIsOpaqueStruct(pointee) != 0 => true,
            LLVMVoidTypeKind | LLVMFunctionTypeKind => false,
            _ => self.is_pointerish(pointee),
        }
    }

    pub(super) unsafe fn store_size(&self, t: LLVMTypeRef) -> u64 {
        LLVMStoreSizeOfType(self.td, t)
    }
}

/// Whether a literal (unnamed) struct type occurs in `t`.
unsafe fn contains_literal_struct(t: LLVMTypeRef) -> bool {
    use LLVMTypeKind::*;
    match LLVMGetTypeKind(t) {
        LLVMStructTypeKind => {
            LLVMIsLiteralStruct(t) != 0
                || (LLVMIsOpaqueStruct(t) == 0
                    && (0..LLVMCountStructElementTypes(t))
                        .any(|i| contains_literal_struct(LLVMStructGetTypeAtIndex(t, i))))
        }
        LLVMArrayTypeKind | LLVMVectorTypeKind => contains_literal_struct(LLVMGetElementType(t)),
        _ => false,
    }
}

/// The non-aggregate (or named struct) pieces of `t` with their counts, in order.
unsafe fn leaf_types(t: LLVMTypeRef, times: u64, out: &mut Vec<(LLVMTypeRef, u64)>) {
    use LLVMTypeKind::*;
    match LLVMGetTypeKind(t) {
        LLVMStructTypeKind if LLVMIsLiteralStruct(t) != 0 => {
            for _ in 0..times.min(64) {
                for i in 0..LLVMCountStructElementTypes(t) {
                    leaf_types(LLVMStructGetTypeAtIndex(t, i), 1, out);
                }
            }
            if times > 64 {
                out.push((t, 0)); // too many to list: not one array (mixed on purpose)
            }
        }
        LLVMArrayTypeKind => leaf_types(
            LLVMGetElementType(t),
            times * LLVMGetArrayLength(t) as u64,
            out,
        ),
        _ => out.push((t, times)),
    }
}

unsafe fn ltype_of(td: LLVMTargetDataRef, t: LLVMTypeRef) -> Option<LType> {
    use LLVMTypeKind::*;
    match LLVMGetTypeKind(t) {
        LLVMIntegerTypeKind
        | LLVMPointerTypeKind
        | LLVMFloatTypeKind
        | LLVMDoubleTypeKind
        | LLVMHalfTypeKind
        | LLVMBFloatTypeKind
        | LLVMX86_FP80TypeKind
        | LLVMFP128TypeKind
        | LLVMPPC_FP128TypeKind
        | LLVMX86_MMXTypeKind => Some(LType::Prim {
            size: LLVMABISizeOfType(td, t),
        }),
        LLVMStructTypeKind => {
            if LLVMIsOpaqueStruct(t) != 0 {
                return None;
            }
            let n = LLVMCountStructElementTypes(t);
            let mut members = Vec::with_capacity(n as usize);
            for i in 0..n {
                let et = LLVMStructGetTypeAtIndex(t, i);
                let off = LLVMOffsetOfElement(td, t, i);
                members.push((off, ltype_of(td, et)?));
            }
            Some(LType::Struct {
                size: LLVMABISizeOfType(td, t),
                members,
            })
        }
        LLVMArrayTypeKind => {
            let elem = ltype_of(td, LLVMGetElementType(t))?;
            Some(LType::Array {
                count: LLVMGetArrayLength(t) as u64,
                elem: Box::new(elem),
            })
        }
        LLVMVectorTypeKind => {
            let elem = ltype_of(td, LLVMGetElementType(t))?;
            Some(LType::Array {
                count: LLVMGetVectorSize(t) as u64,
                elem: Box::new(elem),
            })
        }
        _ => None,
    }
}

impl crate::state::ObjType {
    /// The type's name as a snapshot writes it; None for an LLVM type that has none the
    /// analysis reads (a literal struct, a function, a vector...): such objects are
    /// field-insensitive, and a replayed snapshot says so by giving no type.
    pub fn name(&self) -> Option<String> {
        match self {
            crate::state::ObjType::Named(n) => Some(n.to_string()),
            // SAFETY: an `Llvm` type belongs to the analysed module, alive while it is.
            crate::state::ObjType::Llvm(t) => unsafe { llvm_type_name(*t as LLVMTypeRef) },
            // Laid out by `Session::layout_for` from its body's layout.
            crate::state::ObjType::After { .. } => None,
        }
    }
}

/// A name `Module::layout_of_type_name` reads back, for the types it reads.
unsafe fn llvm_type_name(t: LLVMTypeRef) -> Option<String> {
    use LLVMTypeKind::*;
    if t.is_null() {
        return None;
    }
    match LLVMGetTypeKind(t) {
        LLVMPointerTypeKind => Some("i8*".into()),
        LLVMIntegerTypeKind => Some(format!("i{}", LLVMGetIntTypeWidth(t))),
        LLVMFloatTypeKind => Some("float".into()),
        LLVMDoubleTypeKind => Some("double".into()),
        LLVMX86_FP80TypeKind => Some("x86_fp80".into()),
        LLVMStructTypeKind => {
            let p = LLVMGetStructName(t);
            (!p.is_null() && LLVMIsLiteralStruct(t) == 0)
                .then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
                .filter(|n| !n.is_empty())
        }
        LLVMArrayTypeKind => {
            let e = llvm_type_name(LLVMGetElementType(t))?;
            Some(format!("[{} x {}]", LLVMGetArrayLength(t), e))
        }
        _ => None,
    }
}

impl Module {
    /// The layout of an LLVM type given by its textual name, as a snapshot names it:
    /// `struct.table_t` (or `%struct.table_t`), `i32`, `double`, `i8*` (any pointer),
    /// `[4 x %struct.point]`. None for names the module does not define.
    pub fn layout_of_type_name(&self, name: &str) -> Option<Layout> {
        unsafe {
            let td = LLVMGetModuleDataLayout(self.module);
            let t = self.parse_type(name.trim())?;
            ltype_of(td, t).map(|lt| Layout::new(name.trim().trim_start_matches('%'), lt))
        }
    }

    unsafe fn parse_type(&self, name: &str) -> Option<LLVMTypeRef> {
        let ctx = self.ctx;
        if let Some(inner) = name.strip_suffix('*') {
            // The pointee does not matter for the layout; any pointer is one field.
            let _ = inner;
            return Some(LLVMPointerType(LLVMInt8TypeInContext(ctx), 0));
        }
        if let Some(rest) = name.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let (n, elem) = rest.split_once(" x ")?;
            let e = self.parse_type(elem.trim())?;
            return Some(LLVMArrayType(e, n.trim().parse().ok()?));
        }
        if let Some(bits) = name.strip_prefix('i').and_then(|b| b.parse::<u32>().ok()) {
            return Some(LLVMIntTypeInContext(ctx, bits));
        }
        match name {
            "float" => return Some(LLVMFloatTypeInContext(ctx)),
            "double" => return Some(LLVMDoubleTypeInContext(ctx)),
            "x86_fp80" => return Some(LLVMX86FP80TypeInContext(ctx)),
            _ => {}
        }
        let c = CString::new(name.trim_start_matches('%')).ok()?;
        let t = LLVMGetTypeByName2(ctx, c.as_ptr());
        (!t.is_null()).then_some(t)
    }
}
