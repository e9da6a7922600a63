//! The symbolic-state API of the paper (section 3), as the core sees a state.
//!
//! A state is a set of memory objects, each with an identity, a static allocation site, a
//! size and a (possibly unknown) type, and the pointer values stored in their fields. The
//! paper's `E_s(mo, i)` plus `mayBeTrue_s(e = Base(mo') + i')` become one question:
//! [`SymbolicState::pointer_slots`] returns, for each field that may hold a pointer, the
//! locations it may equal (`Targets_s`). Answering it may cost solver queries, so the core
//! asks only for the objects its projection reaches (section 4.1).
//!
//! Implemented by a recorded snapshot ([`crate::snapshot`]) and, in the KLEE plugin, over
//! `klee::ExecutionState`.

use anyhow::Result;
use std::sync::Arc;

/// The identity of an object in a state (KLEE's `MemoryObject::id`; the snapshot's `id`).
pub type StateObjId = u64;

/// What a pointer value may equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// Byte `offset` of an object; None = somewhere in it (a symbolic offset).
    Object { id: StateObjId, offset: Option<u64> },
    /// The address of a function (a function pointer), by name. Shared: a state view gives
    /// the same name for every pointer to one function (SQLite's calls meet thousands).
    Function(Arc<str>),
    /// The null pointer: points nowhere.
    Null,
    /// A value the state cannot tell apart from a pointer to anything: symbolic input in a
    /// pointer-typed field, or a pointer with too many targets to list. It makes the
    /// call's result say "may touch anything" (a client then stays conservative), instead
    /// of failing the whole call.
    Unknown,
}

/// One memory object of a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateObject {
    pub id: StateObjId,
    /// Static allocation site, labelled as by `pspa analyze` (`heap:F:LINE`, `global:g`...).
    pub site: Arc<str>,
    pub size: u64,
    /// The LLVM type of the object (its elements, when it is larger), if known.
    pub ty: Option<ObjType>,
}

/// An object's type, as a state gives it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ObjType {
    /// By name, as a snapshot writes it: `struct.table_t`, `i32`, `i8*`, `[4 x i8]`. A
    /// name the module does not define is an error of the snapshot.
    Named(Arc<str>),
    /// An `LLVMTypeRef` of the analysed module (the KLEE plugin's `llvm::Type*`), valid
    /// while the module lives. A type the analysis cannot lay out (a literal struct, a
    /// function) makes the object field-insensitive.
    Llvm(usize),
    /// `body` placed `header` bytes into the object: what an allocator that keeps a
    /// header (SQLite's size word) returns, cast by its caller. The header is one field.
    After { header: u64, body: Box<ObjType> },
}

impl ObjType {
    /// This type placed `header` bytes in (itself for 0).
    pub fn after(self, header: u64) -> ObjType {
        match header {
            0 => self,
            _ => ObjType::After {
                header,
                body: Box::new(self),
            },
        }
    }

    /// The header's size and the type after it (0 and itself for a plain type).
    pub fn split(&self) -> (u64, &ObjType) {
        match self {
            ObjType::After { header, body } => (*header, body),
            t => (0, t),
        }
    }
}

/// What one pointer field may point to: one target almost always, held in place (a heap
/// vector per field was a tenth of a list walk's time in allocations).
pub type Targets = smallvec::SmallVec<[Target; 1]>;

/// A pointer field of an object: its byte offset and what it may point to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PointerSlot {
    pub offset: u64,
    pub targets: Targets,
}

/// The paper's symbolic-state API, reduced to what the abstraction needs.
///
/// A read that fails (a value the state cannot give faithfully: the KLEE view's
/// `Read::Failed`) is an error, and the analysis of the call stops with it before anything
/// is solved, cached or dumped: the caller takes the conservative answer.
pub trait SymbolicState {
    /// The function being invoked and, per actual argument, what it may point to
    /// (None for arguments that carry no pointer).
    fn call(&self) -> Result<(&str, Vec<Option<Vec<Target>>>)>;
    /// The object holding each global variable, by the global's LLVM name. Only the
    /// reference projection (every global a root) asks for all of them.
    fn globals(&self) -> Vec<(String, StateObjId)>;
    /// The object holding global `name`, if the state has it.
    fn global(&self, name: &str) -> Option<StateObjId> {
        self.globals()
            .into_iter()
            .find(|(g, _)| g == name)
            .map(|(_, id)| id)
    }
    /// An object of the state, or None for an id the state does not have.
    fn object(&self, id: StateObjId) -> Result<Option<StateObject>>;
    /// The fields of object `id` that may hold pointers, with their targets.
    fn pointer_slots(&self, id: StateObjId) -> Result<Vec<PointerSlot>>;
}
