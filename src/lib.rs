//! pspa: past-sensitive pointer analysis (Trabish et al., ESEC/FSE 2020) for KLEE.
//!
//! Facts in, relations out: the front end turns LLVM bitcode into [`facts`]; the [`solver`]
//! computes points-to sets from an initial graph over the functions an entry reaches;
//! [`modref`] turns them into mod/ref sets; [`analysis`] labels and reports them.

pub mod abstraction;
pub mod analysis;
pub mod bitcode;
pub mod compare;
pub mod facts;
pub mod frontend;
pub mod layout;
pub mod local;
pub mod memory_graph;
pub mod models;
pub mod modref;
pub mod query;
pub mod reach;
pub mod reference;
pub mod scc;
pub mod session;
pub mod site;
pub mod skips;
pub mod slice;
pub mod snapshot;
pub mod solver;
pub mod state;
pub mod summaries;
pub mod wit;
pub mod writeless;
