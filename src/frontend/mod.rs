//! LLVM 14 front end: reads `.bc`, `.ll` or `.c` and extracts pointer facts (`facts.rs`).
//!
//! Uses the LLVM C API through llvm-sys, linked dynamically against Debian's libLLVM-14.so
//! (the library KLEE links), so the same code can later walk KLEE's own module.
//! Names follow the labels of `pspa analyze`: `global:NAME`, `stack:F:VAR`, `heap:F:LINE`,
//! `func:NAME`.
//!
//! One file per concern: `module.rs` loads a module (`.bc`, `.ll`, or `.c` through
//! clang); `functions.rs` declares the functions and walks their bodies; `globals.rs`
//! declares the globals and walks their initialisers; `values.rs` gives values their
//! variables (constants included); `instructions.rs` turns an instruction into
//! constraints; `calls.rs` handles calls, library models and intrinsics; `types.rs`
//! gives LLVM types their layouts; `debug_info.rs` reads source positions and variable
//! names. This file holds the entry points and the walk's state (`Front`).

mod calls;
mod debug_info;
mod functions;
mod globals;
mod instructions;
mod module;
mod types;
mod values;

pub use module::{clang, compile_c, load, Module};

use crate::facts::*;
use anyhow::{anyhow, Result};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use rustc_hash::FxHashMap;
use std::ffi::CStr;
use std::path::Path;

/// Front-end options.
#[derive(Clone, Debug, Default)]
pub struct FrontOptions {
    /// Extra functions that allocate like malloc (`--allocator NAME`).
    pub allocators: Vec<String>,
    /// UNSOUND, for comparisons only (`--svf-blind-spots`): drop the facts the SVF baseline
    /// misses on the fixtures (tests/svf.rs, SVF_MISSES), so that set sizes can be compared
    /// on equal inputs: pointers in array initialisers and at offset 0 of struct
    /// initialisers, and variadic arguments (va_start gives the va_list nothing).
    pub svf_blind_spots: bool,
}

unsafe fn take_message(msg: *mut std::os::raw::c_char) -> String {
    let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
    LLVMDisposeMessage(msg);
    s
}

unsafe fn value_name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    let p = LLVMGetValueName2(v, &mut len);
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
}

/// Extract the facts of a module.
pub fn extract(m: &Module, opts: &FrontOptions) -> Result<Program> {
    let mut fe = Front::new(m, opts);
    unsafe { fe.run()? };
    let mut prog = fe.prog;
    // A misspelt allocator would silently leave its calls to the unknown-function policy.
    let mut warned = rustc_hash::FxHashSet::default();
    for a in &opts.allocators {
        if !prog.functions.iter().any(|f| f.name == *a) && warned.insert(a) {
            log::warn!(
                "--allocator {}: {} has no function of that name; the option has no effect",
                a,
                m.path.display()
            );
        }
    }
    prog.value_vars = fe.vars.iter().map(|(&v, &x)| (v as usize, x)).collect();
    prog.wrapped_sites = wrapped_sites(&prog);
    prog.disambiguate_labels();
    Ok(prog)
}

/// Heap sites in the bodies of functions a model replaces (see `Program::wrapped_sites`),
/// from their labels (`heap:FUNCTION:LINE`), before labels are disambiguated.
fn wrapped_sites(prog: &Program) -> rustc_hash::FxHashSet<ObjId> {
    let modelled: rustc_hash::FxHashSet<&str> = prog
        .functions
        .iter()
        .filter(|f| f.defined && f.model.is_some())
        .map(|f| f.name.as_str())
        .collect();
    if modelled.is_empty() {
        return Default::default();
    }
    (0..prog.objects.len() as ObjId)
        .filter(|&o| {
            let l = &prog.objects[o as usize].label;
            l.strip_prefix("heap:")
                .and_then(|r| r.rsplit_once(':'))
                .is_some_and(|(f, _)| modelled.contains(f))
        })
        .collect()
}

struct Front<'m> {
    m: &'m Module,
    opts: &'m FrontOptions,
    td: LLVMTargetDataRef,
    prog: Program,
    vars: FxHashMap<LLVMValueRef, VarId>,
    funcs: FxHashMap<LLVMValueRef, FuncId>,
    globals: FxHashMap<LLVMValueRef, ObjId>,
    layouts: FxHashMap<LLVMTypeRef, Option<LayoutId>>,
    pointerish: FxHashMap<LLVMTypeRef, bool>,
    const_vars: FxHashMap<(ObjId, i64), VarId>,
    /// Allocation call -> its heap object, until the first cast gives it a type.
    untyped_heap: FxHashMap<LLVMValueRef, ObjId>,
    /// File name -> index in `prog.files`.
    files: FxHashMap<String, u32>,
    cur: FuncId,
    ptr_bits: u32,
    /// Direct calls (instruction address) of variadic functions: KLEE names the object
    /// holding a call's variadic arguments by the call instruction.
    vararg_calls: Vec<(usize, FuncId)>,
}

impl<'m> Front<'m> {
    fn new(m: &'m Module, opts: &'m FrontOptions) -> Front<'m> {
        let td = unsafe { LLVMGetModuleDataLayout(m.module) };
        let ptr_bits = unsafe { LLVMPointerSize(td) } * 8;
        Front {
            m,
            opts,
            td,
            prog: {
                let mut p = Program::default();
                p.module = m.path.display().to_string();
                p.files.push(String::new());
                p
            },
            vars: Default::default(),
            funcs: Default::default(),
            globals: Default::default(),
            layouts: Default::default(),
            pointerish: Default::default(),
            const_vars: Default::default(),
            untyped_heap: Default::default(),
            files: Default::default(),
            cur: 0,
            ptr_bits,
            vararg_calls: Vec::new(),
        }
    }

    fn f(&mut self) -> &mut Function {
        &mut self.prog.functions[self.cur as usize]
    }

    unsafe fn write(&mut self, i: LLVMValueRef, ptr: VarId, size: Option<u64>, kind: WriteKind) {
        let loc = self.src_loc(i);
        self.f().writes.push(Write {
            ptr,
            size,
            kind,
            loc,
            inst: i as usize,
        });
    }

    fn push(&mut self, c: Constraint) {
        self.f().constraints.push(c);
    }

    unsafe fn run(&mut self) -> Result<()> {
        let module = self.m.module;
        // Functions and their objects first: function pointers may appear anywhere.
        self.declare_functions(module);
        self.declare_globals(module);
        // Global initialisers: the initial points-to graph of the whole-program analysis.
        self.initialisers(module);
        // Function bodies.
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            self.cur = self.funcs[&f];
            if LLVMCountBasicBlocks(f) > 0 {
                self.function(f)?;
            }
            f = LLVMGetNextFunction(f);
        }
        self.prog.mark_process_enders();
        // KLEE allocates a variadic call's arguments in one object whose `allocSite` is
        // the call: that object is the callee's `...` object (`Function::varargs`).
        for (call, g) in std::mem::take(&mut self.vararg_calls) {
            if let Some((o, _)) = self.prog.functions[g as usize].varargs {
                self.prog.site_objects.entry(call).or_insert(o);
            }
        }
        Ok(())
    }

    fn unsupported(&mut self, what: &str) {
        *self
            .prog
            .stats
            .unsupported
            .entry(what.to_string())
            .or_insert(0) += 1;
    }

    fn copy(&mut self, dst: VarId, src: Option<VarId>) {
        if let Some(s) = src {
            self.push(Constraint::Copy { dst, src: s });
        }
    }
}

impl Program {
    /// Load and extract in one step.
    pub fn from_file(path: &Path, opts: &FrontOptions) -> Result<Program> {
        let m = load(path)?;
        extract(&m, opts).map_err(|e| anyhow!("{}: {}", path.display(), e))
    }
}
