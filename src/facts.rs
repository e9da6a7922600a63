//! Pointer facts: what the solver consumes. No LLVM types here, so that the same solver can
//! run on facts produced by the bitcode front end, a snapshot, or a KLEE process.
//!
//! Values are variables (`VarId`); memory is objects (`ObjId`) with a layout. Offsets are
//! bytes; the solver maps them to abstract fields through the object's layout.

use crate::layout::Layout;
use crate::models::Model;
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

pub type VarId = u32;
pub type ObjId = u32;
pub type FuncId = u32;
pub type CallId = u32;
pub type LayoutId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjKind {
    Global,
    Stack,
    Heap,
    Func,
}

impl Object {
    /// A function's object: code, not data. Nothing reads or writes its bytes, so an
    /// imprecise pointer to it does not make it a hub.
    pub fn is_code(&self) -> bool {
        self.kind == ObjKind::Func
    }

    /// Whether an execution that goes on can have written it: not code, not constant.
    pub fn is_writable(&self) -> bool {
        !self.is_code() && !self.readonly
    }
}

#[derive(Clone, Debug)]
pub struct Object {
    /// The static site label without field suffix, e.g. `heap:table_insert:32`. Shared:
    /// each read of a state's object gives its site without a copy.
    pub label: std::sync::Arc<str>,
    pub kind: ObjKind,
    /// None: field-insensitive from the start (unknown type).
    pub layout: Option<LayoutId>,
    /// The function whose frame holds the object (stack objects only).
    pub owner: Option<FuncId>,
    /// For `func:` objects, the function it stands for.
    pub func: Option<FuncId>,
    /// Read-only memory (constant globals, string literals): a write to it faults, so no
    /// execution that goes on after a store can have changed its contents.
    pub readonly: bool,
}

/// A pointer move by a constant byte offset plus unknown multiples of some strides.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Gep {
    pub offset: i64,
    pub strides: Vec<u64>,
}

impl Gep {
    /// An unknown offset anywhere in the object (pointer arithmetic through integers,
    /// `strchr`-like results): keeps only byte-granular arrays field-sensitive.
    pub fn unknown() -> Gep {
        Gep {
            offset: 0,
            strides: vec![1],
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Constraint {
    /// dst ⊇ {&obj + offset}
    AddrOf { dst: VarId, obj: ObjId, offset: i64 },
    /// dst ⊇ src
    Copy { dst: VarId, src: VarId },
    /// dst ⊇ *ptr, reading `size` bytes
    Load { dst: VarId, ptr: VarId, size: u64 },
    /// *ptr ⊇ src, writing `size` bytes
    Store { ptr: VarId, src: VarId, size: u64 },
    /// dst ⊇ { p + gep | p ∈ src }
    Gep { dst: VarId, src: VarId, gep: Gep },
    /// Contents of the objects of src flow to the objects of dst (memcpy, realloc, va_copy):
    /// `size` bytes from where they point, or whole objects when unknown.
    MemCopy {
        dst: VarId,
        src: VarId,
        size: Option<u64>,
    },
    /// The objects src points to escape into code we cannot see (unknown externals).
    Escape { src: VarId },
}

impl Constraint {
    /// The variable the constraint defines, if any.
    pub fn dst(&self) -> Option<VarId> {
        match *self {
            Constraint::AddrOf { dst, .. }
            | Constraint::Copy { dst, .. }
            | Constraint::Load { dst, .. }
            | Constraint::Gep { dst, .. } => Some(dst),
            Constraint::Store { .. } | Constraint::MemCopy { .. } | Constraint::Escape { .. } => {
                None
            }
        }
    }
}

/// A memory access for mod/ref: `size` bytes at ptr, or whole objects when None.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub ptr: VarId,
    pub size: Option<u64>,
    pub write: bool,
}

/// A write the program makes, where Write Integrity Testing would check it (`crate::wit`):
/// a store, a memory intrinsic's destination, or an argument a library model writes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    pub ptr: VarId,
    /// Bytes written from the pointer; None: unknown (a library call, a variable length).
    pub size: Option<u64>,
    pub kind: WriteKind,
    pub loc: SrcLoc,
    /// The LLVM instruction (its address: an opaque handle while the module lives), how
    /// KLEE names the write.
    pub inst: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteKind {
    Store,
    Intrinsic,
    Library,
}

/// A source position from debug information: `Program::files[file]`, line, column (0:
/// unknown).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SrcLoc {
    pub file: u32,
    pub line: u32,
    pub col: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Callee {
    Direct(FuncId),
    Indirect(VarId),
}

#[derive(Clone, Debug)]
pub struct CallSite {
    pub caller: FuncId,
    pub callee: Callee,
    /// Actual arguments; None for those that carry no pointer.
    pub args: Vec<Option<VarId>>,
    pub ret: Option<VarId>,
    pub line: u32,
    /// The object a model allocates at this site (`heap:F:LINE`), made by the front end for
    /// direct calls to allocators and for indirect calls (which may reach one).
    pub heap: Option<ObjId>,
    /// Whether each argument's type can carry a pointer (the call's signature, checked
    /// against indirect targets); None for calls the solver makes itself.
    pub arg_ptr: Option<Vec<bool>>,
    /// A model for this call alone, over the callee's (`syscall` with a known number).
    pub model: Option<Model>,
}

#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    /// Has a body in the module.
    pub defined: bool,
    /// Formal parameters; None for those that carry no pointer.
    pub formals: Vec<Option<VarId>>,
    pub ret: Option<VarId>,
    /// The object holding variadic arguments (`stack:F:...`), and a var pointing to it.
    pub varargs: Option<(ObjId, VarId)>,
    /// The function's own `func:` object.
    pub obj: ObjId,
    pub constraints: Vec<Constraint>,
    pub accesses: Vec<Access>,
    /// The writes among them (and the library calls' written arguments), with positions.
    pub writes: Vec<Write>,
    pub calls: Vec<CallId>,
    /// How an external function behaves (None for defined functions, but for those whose
    /// body a model replaces: `body_replaced`, and user-declared allocators with a body).
    pub model: Option<Model>,
    /// In a slice: a function whose address and signature the slice holds but not its body
    /// (no constraint, access or call of it). The solver never runs it: a call bound to it
    /// is a demand for its body (`Solver::demanded_bodies`), and the slice is made again
    /// with it. Always false in a module's own program.
    pub address_only: bool,
    /// Its body holds a `ret` or a `resume`: it may go back to its caller (returning or
    /// unwinding).
    pub returns: bool,
    /// Its body holds an `unreachable` (what follows a call that does not return).
    pub unreachable: bool,
    /// A call of it ends the process (`Program::mark_process_enders`): what it runs is not part
    /// of what its caller does when it returns.
    pub ends_process: bool,
    /// Declared, and what its result points to may hold a pointer (its pointee type can
    /// carry one, or is bytes or opaque): `__ctype_b_loc`'s `i16**`, not
    /// `__errno_location`'s `i32*`. If its model returns static storage, the solver makes
    /// that storage's cells point to the storage itself, which stands for memory the
    /// program did not make (KLEE's ctype table): loads from it are not empty sets.
    pub ret_cells_hold_pointers: bool,
}

impl Function {
    /// A defined libc function whose body its model replaces (`models::BODY_REPLACED`).
    /// Its body is never analysed: each call applies the model, the call's arguments are
    /// bound to its formals, and its own effects are the model's on what they point to
    /// (`Solver::activate`), so that its mod/ref is that of the model (over every call in
    /// the whole program; over the state's arguments when it is the analysed call).
    pub fn body_replaced(&self) -> bool {
        self.defined && self.model.is_some() && crate::models::body_model(&self.name) == self.model
    }
}

/// A source-level variable: `F::v` or `::g`, held in memory object `obj`.
#[derive(Clone, Debug)]
pub struct SourceVar {
    pub name: String,
    pub obj: ObjId,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FrontStats {
    pub defined_functions: usize,
    pub declared_functions: usize,
    pub instructions: usize,
    /// Calls to external functions without a model, by name (conservative policy applied).
    pub unknown_externals: std::collections::BTreeMap<String, usize>,
    /// Instructions the front end does not model precisely (handled conservatively).
    pub unsupported: std::collections::BTreeMap<String, usize>,
    /// Facts dropped on purpose by `--svf-blind-spots` (unsound), by kind.
    pub svf_blind_spots: std::collections::BTreeMap<String, usize>,
}

/// Everything the solver needs about a program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    pub module: String,
    /// Shared with the slices (`slice.rs`): a copy per slice was 50 MB of the plugin's
    /// memory on m4 (every layout with its per-byte tables, in each slice).
    pub layouts: std::sync::Arc<Vec<Layout>>,
    pub objects: Vec<Object>,
    pub num_vars: u32,
    pub functions: Vec<Function>,
    pub calls: Vec<CallSite>,
    /// Initial memory contents (global initialisers): field of (obj, offset) points to
    /// (target, target_offset).
    pub init: Vec<(ObjId, i64, ObjId, i64)>,
    /// Constraints of constant expressions (not tied to one function): always active.
    pub init_constraints: Vec<Constraint>,
    pub source_vars: Vec<SourceVar>,
    /// Source files named by `SrcLoc::file` (index 0: unknown, the empty name).
    pub files: Vec<String>,
    /// A name per variable for diagnostics (`F:%value`); may be shorter than num_vars.
    pub var_names: Vec<String>,
    pub stats: FrontStats,
    /// The object of each allocation site, by the address of its LLVM value (global,
    /// alloca, allocating call, function): how a KLEE `MemoryObject::allocSite` finds its
    /// label. Opaque handles, valid while the module lives.
    pub site_objects: FxHashMap<usize, ObjId>,
    /// The function of each `llvm::Function` address (function pointers in a KLEE state).
    pub site_functions: FxHashMap<usize, FuncId>,
    /// Heap sites inside a function whose body a model replaces (an allocator wrapper
    /// declared with `--allocator`): the analysis never sees them (its sites are the
    /// wrapper's calls), yet KLEE names the objects it allocates there by them.
    pub wrapped_sites: FxHashSet<ObjId>,
    /// The variable of each LLVM instruction or argument that carries pointers, by the
    /// address of its value: how a client names the pointer operand of an access.
    pub value_vars: FxHashMap<usize, VarId>,
    /// The module may leave a function other than by returning to its caller: it catches
    /// exceptions (a landing pad) or calls `setjmp` (a `longjmp` may land there).
    pub nonlocal_jumps: bool,
    /// Name -> function and label -> object, built on first use (see `function_by_name`).
    names: once_cell::sync::OnceCell<(FxHashMap<String, FuncId>, FxHashMap<String, ObjId>)>,
    /// See `single_def`; built on first use.
    single_def: once_cell::sync::OnceCell<Vec<bool>>,
    /// See `used_vars`; built on first use.
    used_vars: once_cell::sync::OnceCell<Vec<bool>>,
    /// See `foreign_storage`; built on first use.
    foreign: once_cell::sync::OnceCell<FxHashSet<ObjId>>,
}

/// A model's result may be memory KLEE made itself (see `Program::foreign_storage`).
fn returns_foreign(m: &Model) -> bool {
    matches!(m, Model::Unknown) || m.returns_static()
}

/// Functions whose calls end the process whatever the program does: C's `exit` family
/// (an atexit handler may not leave by `longjmp`) and KLEE's own path enders.
const ENDS_PROCESS: &[&str] = &[
    "exit",
    "_exit",
    "_Exit",
    "quick_exit",
    "klee_silent_exit",
    "klee_report_error",
    "klee_abort",
];

/// Names of `setjmp`: a module that calls one may `longjmp` out of any function.
const SETJMP: &[&str] = &["setjmp", "_setjmp", "sigsetjmp", "__sigsetjmp", "savectx"];

impl Program {
    /// Mark the functions whose calls end the process (`Function::ends_process`): those of
    /// `ENDS_PROCESS`, and, in a module with no non-local jump (no landing pad, no call of
    /// `setjmp`), the defined functions that never go back to their caller: no `ret`, no
    /// `resume`, and an `unreachable` (the code after a call that does not return; a
    /// function of a mere endless loop is left alone, so that the functions it calls stay
    /// visible to whoever asks whether a call may end the path): libc's `abort` and
    /// `__assert_fail` when the module defines them. Called by the front end once every
    /// body is read.
    pub fn mark_process_enders(&mut self) {
        // A setjmp the module calls, or whose address it takes (libc defines one whether
        // or not the program uses it).
        let setjmp: FxHashSet<ObjId> = self
            .functions
            .iter()
            .filter(|f| SETJMP.contains(&f.name.as_str()))
            .map(|f| f.obj)
            .collect();
        let called = self.calls.iter().any(|c| match c.callee {
            Callee::Direct(g) => setjmp.contains(&self.functions[g as usize].obj),
            Callee::Indirect(_) => false,
        });
        let taken = self
            .functions
            .iter()
            .flat_map(|f| f.constraints.iter())
            .chain(self.init_constraints.iter())
            .any(|c| matches!(c, Constraint::AddrOf { obj, .. } if setjmp.contains(obj)))
            || self.init.iter().any(|&(_, _, t, _)| setjmp.contains(&t));
        self.nonlocal_jumps |= called || taken;
        let jumps = self.nonlocal_jumps;
        for f in &mut self.functions {
            // A program's own `exit` that returns is not libc's.
            f.ends_process = (ENDS_PROCESS.contains(&f.name.as_str()) && !(f.defined && f.returns))
                || (!jumps && f.defined && !f.returns && f.unreachable);
        }
    }

    /// How many abstract fields (solver nodes) an object of `layout` has: one when it has
    /// none (field-insensitive).
    pub fn fields_of(&self, layout: Option<LayoutId>) -> u32 {
        layout.map_or(1, |l| self.layouts[l as usize].abs_size())
    }

    /// Variables whose points-to set is exactly what one constraint of the program puts
    /// there: defined by a single constraint and never bound by a call (formals, results,
    /// returned values, variadic areas are). The solver may merge two such variables when
    /// their constraints are the same function of the same inputs. Computed once, at the
    /// first solve: the program is complete by then (only the front end builds it).
    pub fn single_def(&self) -> &[bool] {
        self.single_def.get_or_init(|| {
            let n = self.num_vars as usize;
            let mut defs = vec![0u8; n];
            let all = self
                .functions
                .iter()
                .flat_map(|f| f.constraints.iter())
                .chain(self.init_constraints.iter());
            for v in all.filter_map(|c| c.dst()) {
                if let Some(d) = defs.get_mut(v as usize) {
                    *d = d.saturating_add(1);
                }
            }
            // Bound by calls: never single.
            let bound = self
                .functions
                .iter()
                .flat_map(|f| {
                    f.formals
                        .iter()
                        .flatten()
                        .chain(f.ret.iter())
                        .chain(f.varargs.iter().map(|(_, v)| v))
                })
                .chain(self.calls.iter().flat_map(|c| c.ret.iter()));
            for &v in bound {
                if let Some(d) = defs.get_mut(v as usize) {
                    *d = u8::MAX;
                }
            }
            defs.into_iter().map(|d| d == 1).collect()
        })
    }

    /// Variables whose points-to set goes on somewhere: an input of a constraint, an
    /// access, a call (argument, indirect callee) or a return. The others are only
    /// defined, and compared at most (`p->up->right == p` loads `right` and looks no
    /// further): what they point to is never read, so a walk need not follow the fields
    /// loaded into them (`Solver::walks`). Computed once, like `single_def`.
    pub fn used_vars(&self) -> &[bool] {
        self.used_vars.get_or_init(|| {
            let mut used = vec![false; self.num_vars as usize];
            let mut mark = |v: VarId| {
                if let Some(u) = used.get_mut(v as usize) {
                    *u = true;
                }
            };
            let all = self
                .functions
                .iter()
                .flat_map(|f| f.constraints.iter())
                .chain(self.init_constraints.iter());
            for c in all {
                match *c {
                    Constraint::AddrOf { .. } => {}
                    Constraint::Copy { src, .. }
                    | Constraint::Gep { src, .. }
                    | Constraint::Escape { src } => mark(src),
                    Constraint::Load { ptr, .. } => mark(ptr),
                    Constraint::Store { ptr, src, .. } => {
                        mark(ptr);
                        mark(src);
                    }
                    Constraint::MemCopy { dst, src, .. } => {
                        mark(dst);
                        mark(src);
                    }
                }
            }
            for f in &self.functions {
                f.accesses.iter().for_each(|a| mark(a.ptr));
                f.ret.into_iter().for_each(&mut mark);
            }
            for c in &self.calls {
                c.args.iter().flatten().for_each(|&v| mark(v));
                if let Callee::Indirect(v) = c.callee {
                    mark(v);
                }
            }
            used
        })
    }

    pub fn new_var(&mut self) -> VarId {
        self.num_vars += 1;
        self.num_vars - 1
    }

    pub fn var_name(&self, v: VarId) -> &str {
        self.var_names
            .get(v as usize)
            .map(|s| s.as_str())
            .unwrap_or("<synthetic>")
    }

    pub fn add_object(&mut self, obj: Object) -> ObjId {
        self.names.take();
        self.objects.push(obj);
        (self.objects.len() - 1) as ObjId
    }

    pub fn add_layout(&mut self, l: Layout) -> LayoutId {
        // Copied first when slices share them (they are made again: `Session::slice_for`).
        std::sync::Arc::make_mut(&mut self.layouts).push(l);
        (self.layouts.len() - 1) as LayoutId
    }

    /// The objects of direct calls whose result may be memory the program did not
    /// allocate there: a model's static storage (`RetStatic`: errno, a `localtime`
    /// buffer) or an unknown function's result. What KLEE maps for such a call is its own
    /// object, of no site of the program. (An indirect call's model allocations are
    /// objects the solver makes, `ResLoc::Made`.) Built on first use: add calls before
    /// asking.
    pub fn foreign_storage(&self) -> &FxHashSet<ObjId> {
        self.foreign.get_or_init(|| {
            self.calls
                .iter()
                .filter(|c| match c.callee {
                    Callee::Indirect(_) => false,
                    Callee::Direct(f) => c
                        .model
                        .as_ref()
                        .or(self.functions[f as usize].model.as_ref())
                        .is_some_and(returns_foreign),
                })
                .filter_map(|c| c.heap)
                .collect()
        })
    }

    fn names(&self) -> &(FxHashMap<String, FuncId>, FxHashMap<String, ObjId>) {
        self.names.get_or_init(|| {
            let mut f = FxHashMap::default();
            for (i, func) in self.functions.iter().enumerate().rev() {
                f.insert(func.name.clone(), i as FuncId);
            }
            let mut o = FxHashMap::default();
            for (i, obj) in self.objects.iter().enumerate().rev() {
                o.insert(obj.label.to_string(), i as ObjId);
            }
            (f, o)
        })
    }

    /// The function named `name`. The index is built on first use: add functions and
    /// objects before asking.
    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        match self.names().0.get(name) {
            Some(&f)
                if self
                    .functions
                    .get(f as usize)
                    .is_some_and(|x| x.name == name) =>
            {
                Some(f)
            }
            // Functions pushed after the index was built.
            _ => self
                .functions
                .iter()
                .position(|f| f.name == name)
                .map(|i| i as FuncId),
        }
    }

    pub fn object_by_label(&self, label: &str) -> Option<ObjId> {
        self.names().1.get(label).copied()
    }

    /// Number of constraints of all functions (for statistics).
    pub fn num_constraints(&self) -> usize {
        self.functions
            .iter()
            .map(|f| f.constraints.len())
            .sum::<usize>()
            + self.calls.len()
            + self.init.len()
    }

    /// Give labels that collide a `#2`, `#3`, ... suffix in object order.
    pub fn disambiguate_labels(&mut self) {
        self.names.take();
        let mut seen: rustc_hash::FxHashMap<String, u32> = Default::default();
        for o in &mut self.objects {
            let n = seen.entry(o.label.to_string()).or_insert(0);
            *n += 1;
            if *n > 1 {
                o.label = format!("{}#{}", o.label, n).into();
            }
        }
        let mut seen: rustc_hash::FxHashMap<String, u32> = Default::default();
        for v in &mut self.source_vars {
            let n = seen.entry(v.name.clone()).or_insert(0);
            *n += 1;
            if *n > 1 {
                v.name = format!("{}#{}", v.name, n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(name: &str, defined: bool, returns: bool, unreachable: bool) -> Function {
        Function {
            name: name.to_string(),
            defined,
            returns,
            unreachable,
            ..Default::default()
        }
    }

    fn call(caller: FuncId, callee: FuncId) -> CallSite {
        CallSite {
            caller,
            callee: Callee::Direct(callee),
            args: Vec::new(),
            ret: None,
            line: 0,
            heap: None,
            arg_ptr: None,
            model: None,
        }
    }

    /// Which functions end the process: by name (`exit`, even declared; not a defined
    /// `exit` that returns); by shape (no `ret`, an `unreachable`) only where nothing can
    /// jump out of a function. `die` ends in an `unreachable`; `serve` loops forever
    /// without one; `parse` returns.
    #[test]
    fn a_function_ends_the_process_by_name_or_by_its_shape_when_nothing_jumps_out() {
        // Each function its own object, as the front end makes them.
        let funcs = || {
            let mut v = vec![
                func("exit", false, false, false),
                func("die", true, false, true),
                func("serve", true, false, false),
                func("parse", true, true, true),
                func("_setjmp", true, true, false),
            ];
            for (i, f) in v.iter_mut().enumerate() {
                f.obj = i as ObjId;
            }
            v
        };
        let ends =
            |p: &Program| -> Vec<bool> { p.functions.iter().map(|f| f.ends_process).collect() };
        // parse calls die: no setjmp is called. libc's _setjmp is defined, never called.
        let mut p = Program {
            functions: funcs(),
            calls: vec![call(3, 1)],
            ..Default::default()
        };
        p.mark_process_enders();
        assert!(!p.nonlocal_jumps);
        assert_eq!(ends(&p)[..4], [true, true, false, false]);
        // One that calls it may longjmp out of `die`: only `exit` is left.
        let mut q = Program {
            functions: funcs(),
            calls: vec![call(3, 1), call(3, 4)],
            ..Default::default()
        };
        q.mark_process_enders();
        assert!(q.nonlocal_jumps);
        assert_eq!(ends(&q)[..4], [true, false, false, false]);
        // A program's own `exit` that returns is not libc's.
        let mut e = Program {
            functions: funcs(),
            ..Default::default()
        };
        e.functions[0] = func("exit", true, true, false);
        e.mark_process_enders();
        assert!(!e.functions[0].ends_process);
        // One with a landing pad (noted by the front end): only `exit` is left too.
        let mut r = Program {
            functions: funcs(),
            nonlocal_jumps: true,
            ..Default::default()
        };
        r.mark_process_enders();
        assert_eq!(ends(&r)[..4], [true, false, false, false]);
    }
}
