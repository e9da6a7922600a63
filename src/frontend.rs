//! LLVM 14 front end: reads `.bc`, `.ll` or `.c` and extracts pointer facts (`facts.rs`).
//!
//! Uses the LLVM C API through llvm-sys, linked dynamically against Debian's libLLVM-14.so
//! (the library KLEE links), so the same code can later walk KLEE's own module.
//! Names follow the labels of `pspa analyze`: `global:NAME`, `stack:F:VAR`, `heap:F:LINE`,
//! `func:NAME`.

use crate::facts::*;
use crate::layout::{LType, Layout};
use crate::models::{body_model, model_for, syscall_model, Model};
use crate::site;
use anyhow::{anyhow, bail, Context, Result};
use llvm_sys::core::*;
use llvm_sys::ir_reader::LLVMParseIRInContext;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode, LLVMTypeKind};
use rustc_hash::FxHashMap;
use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Where an initialiser's pointer sits, for `svf_blind_spots`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum InitPlace {
    Scalar,
    Struct,
    Array,
}

/// An LLVM module with its context: parsed here (disposed on drop) or borrowed from the
/// host process (KLEE's own module, never disposed here).
pub struct Module {
    ctx: LLVMContextRef,
    module: LLVMModuleRef,
    owned: bool,
    pub path: PathBuf,
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.owned {
            unsafe {
                LLVMDisposeModule(self.module);
                LLVMContextDispose(self.ctx);
            }
        }
    }
}

impl Module {
    /// Borrow a module that lives in this process (an `llvm::Module*` of KLEE).
    ///
    /// # Safety
    /// `module` must be a valid `llvm::Module*` outliving the returned value, of the same
    /// LLVM library this crate links (libLLVM-14.so).
    pub unsafe fn borrowed(module: LLVMModuleRef, path: PathBuf) -> Module {
        Module {
            ctx: LLVMGetModuleContext(module),
            module,
            owned: false,
            path,
        }
    }

    /// The size of a pointer in the module's data layout (address space 0), in bytes.
    pub fn pointer_bytes(&self) -> u64 {
        unsafe { LLVMPointerSize(LLVMGetModuleDataLayout(self.module)) as u64 }
    }

    /// Write the module as bitcode (so that snapshots of it can be replayed).
    pub fn write_bitcode(&self, path: &Path) -> Result<()> {
        let c = CString::new(path.display().to_string())
            .map_err(|_| anyhow!("{}: bad path", path.display()))?;
        if unsafe { llvm_sys::bit_writer::LLVMWriteBitcodeToFile(self.module, c.as_ptr()) } != 0 {
            bail!("{}: cannot write bitcode", path.display());
        }
        Ok(())
    }
}

/// Read a module from `.bc` / `.ll`, or compile a `.c` file with clang-14 first.
pub fn load(path: &Path) -> Result<Module> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("{}: cannot read file", path.display()))?;
    if meta.is_dir() {
        bail!(
            "{}: is a directory, expected a .bc, .ll or .c file",
            path.display()
        );
    }
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if ext == "c" {
        let dir = tempfile::tempdir().context("cannot create a temporary directory")?;
        let bc = dir.path().join("input.bc");
        compile_c(path, &bc)?;
        let mut m = parse(&bc).with_context(|| format!("{}: compiled bitcode", path.display()))?;
        m.path = path.to_path_buf();
        return Ok(m);
    }
    parse(path)
}

/// The clang command used for `.c` inputs (overridable with `PSPA_CLANG`).
pub fn clang() -> String {
    std::env::var("PSPA_CLANG").unwrap_or_else(|_| "clang-14".to_string())
}

pub fn compile_c(src: &Path, out: &Path) -> Result<()> {
    let cc = clang();
    let output = Command::new(&cc)
        .args([
            "-g",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-fno-discard-value-names",
            "-emit-llvm",
            "-c",
        ])
        .arg(src)
        .arg("-o")
        .arg(out)
        .output();
    let output = match output {
        Ok(o) => o,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!(
                "{}: cannot compile C: `{}` not found (install it: apt-get install clang-14)",
                src.display(),
                cc
            )
        }
        Err(e) => bail!("{}: cannot run {}: {}", src.display(), cc, e),
    };
    if !output.status.success() {
        bail!(
            "{}: {} failed:\n{}",
            src.display(),
            cc,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

fn parse(path: &Path) -> Result<Module> {
    let bytes =
        std::fs::read(path).with_context(|| format!("{}: cannot read file", path.display()))?;
    if bytes.is_empty() {
        // LLVM would read an empty buffer as textual IR of an empty module.
        bail!("{}: empty file, not LLVM bitcode or IR", path.display());
    }
    let is_bc = crate::bitcode::looks_like_bitcode(&bytes);
    if !is_bc && std::str::from_utf8(&bytes).is_err() {
        bail!("{}: not LLVM bitcode or textual IR", path.display());
    }
    if is_bc {
        // LLVM aborts the process on some truncated files (a cut inside the symbol table):
        // their structure is checked first (src/bitcode.rs).
        if let Err(e) = crate::bitcode::check(&bytes) {
            bail!("{}: malformed bitcode: {}", path.display(), e);
        }
    }
    unsafe {
        let ctx = LLVMContextCreate();
        let name = CString::new(path.display().to_string()).unwrap_or_default();
        // LLVMParseIRInContext takes ownership of the buffer.
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
            bytes.as_ptr() as *const _,
            bytes.len(),
            name.as_ptr(),
        );
        let mut module = std::ptr::null_mut();
        let mut msg = std::ptr::null_mut();
        if LLVMParseIRInContext(ctx, buf, &mut module, &mut msg) != 0 {
            let err = if msg.is_null() {
                "unknown error".to_string()
            } else {
                take_message(msg)
            };
            LLVMContextDispose(ctx);
            let what = if is_bc {
                "malformed bitcode"
            } else {
                "malformed LLVM IR"
            };
            let hint = is_bc
                .then(|| crate::bitcode::hint(&bytes))
                .flatten()
                .map(|h| format!(" ({h})"))
                .unwrap_or_default();
            bail!("{}: {}: {}{}", path.display(), what, err.trim(), hint);
        }
        Ok(Module {
            ctx,
            module,
            owned: true,
            path: path.to_path_buf(),
        })
    }
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
    /// An untyped allocation's result merged by phi or select `merge` (`hook ? hook(n) :
    /// malloc(n)`, libosip's `osip_malloc`, is a phi at -O0): the merge's first cast
    /// types it too. With several, the first incoming allocation is the one kept.
    unsafe fn through_merge(&mut self, merge: LLVMValueRef, v: LLVMValueRef) {
        if let Some(&h) = self.untyped_heap.get(&v) {
            self.untyped_heap.entry(merge).or_insert(h);
        }
    }

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

    /// Where instruction `i` is in the source (debug information; zeros without it).
    unsafe fn src_loc(&mut self, i: LLVMValueRef) -> SrcLoc {
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
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            let name = value_name(f);
            let id = self.prog.functions.len() as FuncId;
            let obj = self.prog.add_object(Object {
                label: site::func(&name),
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
            self.prog.functions.push(Function {
                name,
                defined,
                obj,
                model,
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
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            let name = value_name(g);
            let ty = LLVMGlobalGetValueType(g);
            let layout = self.global_layout(ty);
            let obj = self.prog.add_object(Object {
                label: site::global(&name),
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
        // Global initialisers: the initial points-to graph of the whole-program analysis.
        let mut g = LLVMGetFirstGlobal(module);
        while !g.is_null() {
            let init = LLVMGetInitializer(g);
            if !init.is_null() {
                let obj = self.globals[&g];
                self.walk_init(obj, init, 0, InitPlace::Scalar);
            }
            g = LLVMGetNextGlobal(g);
        }
        // Function bodies.
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            self.cur = self.funcs[&f];
            if LLVMCountBasicBlocks(f) > 0 {
                self.function(f)?;
            }
            f = LLVMGetNextFunction(f);
        }
        // KLEE allocates a variadic call's arguments in one object whose `allocSite` is
        // the call: that object is the callee's `...` object (`Function::varargs`).
        for (call, g) in std::mem::take(&mut self.vararg_calls) {
            if let Some((o, _)) = self.prog.functions[g as usize].varargs {
                self.prog.site_objects.entry(call).or_insert(o);
            }
        }
        Ok(())
    }

    // ---- types ----------------------------------------------------------------------

    unsafe fn ltype(&mut self, t: LLVMTypeRef) -> Option<LType> {
        ltype_of(self.td, t)
    }

    unsafe fn type_name(t: LLVMTypeRef) -> String {
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
    unsafe fn layout(&mut self, t: LLVMTypeRef) -> Option<LayoutId> {
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
    unsafe fn global_layout(&mut self, t: LLVMTypeRef) -> Option<LayoutId> {
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
    unsafe fn is_pointerish(&mut self, t: LLVMTypeRef) -> bool {
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

    // ---- values ---------------------------------------------------------------------

    fn fresh_var(&mut self) -> VarId {
        self.prog.new_var()
    }

    /// The variable of an instruction or argument result.
    fn def_var(&mut self, v: LLVMValueRef) -> VarId {
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
    unsafe fn var(&mut self, v: LLVMValueRef) -> Option<VarId> {
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
    fn push_global(&mut self, c: Constraint) {
        self.prog.init_constraints.push(c);
    }

    fn const_var(&mut self, obj: ObjId, off: i64) -> VarId {
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
    unsafe fn const_target(&mut self, v: LLVMValueRef) -> Option<(ObjId, i64)> {
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
    unsafe fn gep_of(&mut self, v: LLVMValueRef) -> Option<Gep> {
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

    // ---- functions ------------------------------------------------------------------

    unsafe fn dbg_names(&mut self, f: LLVMValueRef) -> FxHashMap<LLVMValueRef, String> {
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

    unsafe fn function(&mut self, f: LLVMValueRef) -> Result<()> {
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
                label: site::stack(&fname, "..."),
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
            label: site::heap("main", 0),
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

    unsafe fn store_size(&self, t: LLVMTypeRef) -> u64 {
        LLVMStoreSizeOfType(self.td, t)
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

    unsafe fn instruction(
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
            LLVMAlloca => {
                let name = names.get(&i).cloned().unwrap_or_else(|| value_name(i));
                let aty = LLVMGetAllocatedType(i);
                let count = LLVMGetOperand(i, 0);
                let layout = if !LLVMIsAConstantInt(count).is_null()
                    && LLVMConstIntGetZExtValue(count) > 1
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
                    label: site::stack(fname, &name),
                    kind: ObjKind::Stack,
                    layout,
                    owner: Some(self.cur),
                    func: None,
                    readonly: false,
                });
                if names.contains_key(&i)
                    && LLVMGetTypeKind(aty) == LLVMTypeKind::LLVMPointerTypeKind
                {
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
            LLVMLoad => {
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
            LLVMStore => {
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
            LLVMGetElementPtr => {
                let d = self.def_var(i);
                let src = self.var(LLVMGetOperand(i, 0));
                if let Some(s) = src {
                    match self.gep_of(i) {
                        Some(g) if g == Gep::default() => {
                            self.push(Constraint::Copy { dst: d, src: s })
                        }
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
            LLVMBitCast | LLVMAddrSpaceCast => {
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
            LLVMPtrToInt => {
                if ptrish {
                    let d = self.def_var(i);
                    let s = self.var(LLVMGetOperand(i, 0));
                    self.copy(d, s);
                }
            }
            LLVMIntToPtr => {
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
            LLVMRet => {
                if LLVMGetNumOperands(i) > 0 {
                    let s = self.var(LLVMGetOperand(i, 0));
                    if let (Some(r), Some(s)) = (self.f().ret, s) {
                        self.push(Constraint::Copy { dst: r, src: s });
                    }
                }
            }
            LLVMCall | LLVMInvoke | LLVMCallBr => self.call(i, fname, ptrish)?,
            LLVMVAArg => {
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
            LLVMAtomicCmpXchg | LLVMAtomicRMW => {
                let (p, val) = if op == LLVMAtomicCmpXchg {
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
            // Integers made from narrower integers or floats, or by multiplication, division,
            // remainder and shifts, carry no pointer (hashing an address does not make one).
            LLVMSExt | LLVMZExt | LLVMTrunc | LLVMFPToSI | LLVMFPToUI | LLVMMul | LLVMUDiv
            | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl | LLVMLShr | LLVMAShr | LLVMICmp
            | LLVMFCmp => {}
            LLVMLandingPad | LLVMCatchPad | LLVMCleanupPad | LLVMCatchSwitch => {
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

    unsafe fn call(&mut self, i: LLVMValueRef, fname: &str, ptrish: bool) -> Result<()> {
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
                label: site::heap(fname, line),
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
    unsafe fn plain_address(&mut self, v: LLVMValueRef) -> bool {
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
            crate::state::ObjType::Named(n) => Some(n.clone()),
            // SAFETY: an `Llvm` type belongs to the analysed module, alive while it is.
            crate::state::ObjType::Llvm(t) => unsafe { llvm_type_name(*t as LLVMTypeRef) },
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

impl Program {
    /// Load and extract in one step.
    pub fn from_file(path: &Path, opts: &FrontOptions) -> Result<Program> {
        let m = load(path)?;
        extract(&m, opts).map_err(|e| anyhow!("{}: {}", path.display(), e))
    }
}
