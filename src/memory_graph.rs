//! The memory graph G_s of a state and its projection G^p_s(R) (paper 4.1).
//!
//! Nodes are (object, byte offset) of the live objects; an edge says that a pointer field
//! may equal an address. The projection keeps what is reachable from the roots R: the
//! call's pointer arguments and the globals. The invoked function can touch nothing else,
//! so objects outside it are never asked for their pointers (each answer may cost solver
//! queries in a live state).

use crate::state::{PointerSlot, StateObjId, StateObject, SymbolicState, Target};
use anyhow::{bail, Result};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::VecDeque;

/// The projected memory graph: reachable objects with their pointer fields.
#[derive(Clone, Debug, Default)]
pub struct MemoryGraph {
    /// Called function and, per argument, its targets (None: carries no pointer).
    pub function: String,
    pub args: Vec<Option<Vec<Target>>>,
    /// Global name -> object holding it (all globals of the state are roots).
    pub globals: Vec<(String, StateObjId)>,
    /// Reachable objects in breadth-first order from the roots (deterministic for a
    /// given state), each with its pointer fields.
    pub objects: Vec<(StateObject, Vec<PointerSlot>)>,
    /// Position of each object in `objects`.
    pub index: FxHashMap<StateObjId, u32>,
    /// Objects pointed to at a symbolic offset somewhere (`Target { offset: None }`).
    pub symbolic_offset: FxHashSet<StateObjId>,
}

impl MemoryGraph {
    /// G^p_s(R) with R = the call's pointer arguments and the globals' addresses.
    pub fn project(s: &dyn SymbolicState) -> Result<MemoryGraph> {
        let (function, args) = s.call();
        let mut g = MemoryGraph { function: function.to_string(), args, globals: s.globals(), ..Default::default() };
        let mut work: VecDeque<StateObjId> = VecDeque::new();
        let visit = |t: &Target, work: &mut VecDeque<StateObjId>, g: &mut MemoryGraph| {
            if let Target::Object { id, offset } = t {
                if offset.is_none() {
                    g.symbolic_offset.insert(*id);
                }
                work.push_back(*id);
            }
        };
        for a in g.args.clone().iter().flatten() {
            for t in a {
                visit(t, &mut work, &mut g);
            }
        }
        for (_, id) in g.globals.clone() {
            work.push_back(id);
        }
        while let Some(id) = work.pop_front() {
            if g.index.contains_key(&id) {
                continue;
            }
            let Some(o) = s.object(id) else { bail!("dangling object id {}", id) };
            let slots = s.pointer_slots(id);
            for sl in &slots {
                for t in &sl.targets {
                    visit(t, &mut work, &mut g);
                }
            }
            g.index.insert(id, g.objects.len() as u32);
            g.objects.push((o, slots));
        }
        Ok(g)
    }

    pub fn num_edges(&self) -> usize {
        self.objects.iter().flat_map(|(_, s)| s).map(|s| s.targets.len()).sum()
    }
}
