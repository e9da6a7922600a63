//! The memory graph G_s of a state and its projection G^p_s(R) (paper 4.1).
//!
//! Nodes are (object, byte offset) of the live objects; an edge says that a pointer field
//! may equal an address. The projection keeps what is reachable from the roots R: the
//! call's pointer arguments and the globals. The invoked function can touch nothing else,
//! so objects outside it are never asked for their pointers (each answer may cost solver
//! queries in a live state).

use crate::facts::Program;
use crate::reach::Reach;
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
    /// Global name -> object holding it, for the globals in the projection (roots and
    /// globals met through pointers), in the order met.
    pub globals: Vec<(String, StateObjId)>,
    /// Reachable objects in breadth-first order from the roots (deterministic for a
    /// given state), each with its pointer fields.
    pub objects: Vec<(StateObject, Vec<PointerSlot>)>,
    /// Position of each object in `objects`.
    pub index: FxHashMap<StateObjId, u32>,
    /// Objects pointed to at a symbolic offset somewhere (`Target { offset: None }`).
    pub symbolic_offset: FxHashSet<StateObjId>,
}

/// Which globals are roots of the projection.
#[derive(Clone, Copy)]
pub enum Roots<'a> {
    /// Every global of the state: the paper's definition. Kept as the reference that the
    /// narrowed projection is checked against (`--pspa-all-globals`, tests).
    AllGlobals,
    /// The globals the callee's code can name ([`Reach`]), closed over the functions whose
    /// addresses the projection meets. The call can touch nothing else (see `reach`).
    Named(&'a Program, &'a Reach),
}

impl MemoryGraph {
    /// G^p_s(R) with R = the call's pointer arguments and the roots' globals.
    pub fn project(s: &dyn SymbolicState, roots: Roots) -> Result<MemoryGraph> {
        let (function, args) = s.call();
        let mut g = MemoryGraph { function: function.to_string(), args, ..Default::default() };
        let mut p = Projection { work: VecDeque::new(), funcs: FxHashSet::default(), globals: FxHashSet::default() };
        for a in g.args.clone().iter().flatten() {
            for t in a {
                p.visit(t, &mut g, s, roots);
            }
        }
        match roots {
            Roots::AllGlobals => {
                for (name, id) in s.globals() {
                    p.work.push_back(id);
                    p.globals.insert(id);
                    g.globals.push((name, id));
                }
            }
            Roots::Named(..) => p.function(&g.function.clone(), &mut g, s, roots),
        }
        while let Some(id) = p.work.pop_front() {
            if g.index.contains_key(&id) {
                continue;
            }
            let Some(o) = s.object(id) else { bail!("dangling object id {}", id) };
            // A global met through a pointer is still the program's object (abstraction).
            if let (Some(name), false) = (o.site.strip_prefix("global:"), p.globals.contains(&id)) {
                if s.global(name) == Some(id) {
                    p.globals.insert(id);
                    g.globals.push((name.to_string(), id));
                }
            }
            let slots = s.pointer_slots(id);
            for sl in &slots {
                for t in &sl.targets {
                    p.visit(t, &mut g, s, roots);
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

/// The projection's work list and what it has rooted so far.
struct Projection {
    work: VecDeque<StateObjId>,
    /// Functions whose named globals are roots already.
    funcs: FxHashSet<String>,
    /// Objects known to hold globals.
    globals: FxHashSet<StateObjId>,
}

impl Projection {
    fn visit(&mut self, t: &Target, g: &mut MemoryGraph, s: &dyn SymbolicState, roots: Roots) {
        match t {
            Target::Object { id, offset } => {
                if offset.is_none() {
                    g.symbolic_offset.insert(*id);
                }
                self.work.push_back(*id);
            }
            // Code the call may run through this pointer: what it names is reachable too.
            Target::Function(name) => self.function(name, g, s, roots),
            Target::Null | Target::Unknown => {}
        }
    }

    /// Root the globals `name` (and what it reaches through named functions) names.
    fn function(&mut self, name: &str, g: &mut MemoryGraph, s: &dyn SymbolicState, roots: Roots) {
        let Roots::Named(prog, reach) = roots else { return };
        if self.funcs.contains(name) {
            return;
        }
        self.funcs.insert(name.to_string());
        // An unknown function has no code of ours: the abstraction reports it.
        let Some(f) = prog.function_by_name(name) else { return };
        for &o in reach.globals(f).iter() {
            let Some(gname) = prog.objects[o as usize].label.strip_prefix("global:") else { continue };
            // A global the state lacks (a snapshot written with fewer) cannot be read.
            let Some(id) = s.global(gname) else { continue };
            if self.globals.insert(id) {
                g.globals.push((gname.to_string(), id));
            }
            self.work.push_back(id);
        }
    }
}
