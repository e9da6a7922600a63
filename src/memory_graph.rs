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
use std::sync::Arc;

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
    /// Per object: whether its contents were read. An opaque object (not fetched) has no
    /// slots listed; the analysis fetches it when it reads any of its fields.
    pub fetched: Vec<bool>,
    proj: Projection,
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
    /// G^p_s(R) with R = the call's pointer arguments and the roots' globals: every
    /// reachable object read (the eager projection, and the reference for `start`).
    pub fn project(s: &dyn SymbolicState, roots: Roots) -> Result<MemoryGraph> {
        let mut g = MemoryGraph::start(s, roots)?;
        g.fetch_all(s, roots)?;
        Ok(g)
    }

    /// The roots of the projection, none of them read yet: the objects the arguments
    /// point to and the roots' globals, each *opaque* (known by site, size and type, its
    /// contents not asked for). `fetch` reads them on demand.
    pub fn start(s: &dyn SymbolicState, roots: Roots) -> Result<MemoryGraph> {
        let (function, args) = s.call()?;
        let mut g = MemoryGraph {
            function: function.to_string(),
            args,
            ..Default::default()
        };
        for a in g.args.clone().iter().flatten() {
            for t in a {
                g.visit(t, s, roots)?;
            }
        }
        match roots {
            Roots::AllGlobals => {
                for (name, id) in s.globals() {
                    g.discover(id, s)?;
                    if g.proj.globals.insert(id) {
                        g.globals.push((name, id));
                    }
                }
            }
            Roots::Named(..) => g.function_roots(&g.function.clone(), s, roots)?,
        }
        Ok(g)
    }

    /// How many objects' contents were read.
    pub fn fetched_count(&self) -> usize {
        self.fetched.iter().filter(|f| **f).count()
    }

    /// Read the contents of object `i` (its pointer fields); the objects they point to
    /// join the graph, opaque.
    pub fn fetch(&mut self, s: &dyn SymbolicState, roots: Roots, i: u32) -> Result<()> {
        if self.fetched[i as usize] {
            return Ok(());
        }
        let slots = s.pointer_slots(self.objects[i as usize].0.id)?;
        self.fetched[i as usize] = true;
        for sl in &slots {
            for t in &sl.targets {
                self.visit(t, s, roots)?;
            }
        }
        self.objects[i as usize].1 = slots;
        Ok(())
    }

    /// Meet object `id` of the state (opaque) if the state still has it: an object a
    /// skipped call's post-state points to, which the projection did not reach. False
    /// when the state has no such object (freed since).
    pub fn meet(&mut self, s: &dyn SymbolicState, id: StateObjId) -> Result<bool> {
        if self.index.contains_key(&id) {
            return Ok(true);
        }
        if s.object(id)?.is_none() {
            return Ok(false);
        }
        self.discover(id, s)?;
        Ok(true)
    }

    /// Read every reachable object, breadth first from the roots (objects join in the
    /// order they are met, so this is the order of a breadth-first walk).
    pub fn fetch_all(&mut self, s: &dyn SymbolicState, roots: Roots) -> Result<()> {
        let mut i = 0;
        while i < self.objects.len() {
            self.fetch(s, roots, i as u32)?;
            i += 1;
        }
        Ok(())
    }

    /// Whether object `id` holds a global (a root, or met through a pointer).
    pub fn is_global(&self, id: StateObjId) -> bool {
        self.proj.globals.contains(&id)
    }

    fn visit(&mut self, t: &Target, s: &dyn SymbolicState, roots: Roots) -> Result<()> {
        match t {
            Target::Object { id, offset } => {
                if offset.is_none() {
                    self.symbolic_offset.insert(*id);
                }
                self.discover(*id, s)?;
            }
            // Code the call may run through this pointer: what it names is reachable too.
            // By the shared name's address first (held, so that no other name takes it): a
            // view gives one name per function, and SQLite's calls meet thousands of
            // pointers to a few hundred functions.
            Target::Function(name) => {
                let key = Arc::as_ptr(name) as *const u8 as usize;
                if let std::collections::hash_map::Entry::Vacant(e) = self.proj.names.entry(key) {
                    e.insert(name.clone());
                    self.function_roots(name, s, roots)?
                }
            }
            Target::Null | Target::Unknown => {}
        }
        Ok(())
    }

    /// Add object `id`, opaque, unless the graph has it.
    fn discover(&mut self, id: StateObjId, s: &dyn SymbolicState) -> Result<()> {
        if self.index.contains_key(&id) {
            return Ok(());
        }
        let Some(o) = s.object(id)? else {
            bail!("dangling object id {}", id)
        };
        // A global met through a pointer is still the program's object (abstraction).
        if let (Some(name), false) = (
            crate::site::global_name(&o.site),
            self.proj.globals.contains(&id),
        ) {
            if s.global(name) == Some(id) {
                self.proj.globals.insert(id);
                self.globals.push((name.to_string(), id));
            }
        }
        self.index.insert(id, self.objects.len() as u32);
        self.objects.push((o, Vec::new()));
        self.fetched.push(false);
        Ok(())
    }

    /// Root the globals `name` (and what it reaches through named functions) names.
    fn function_roots(&mut self, name: &str, s: &dyn SymbolicState, roots: Roots) -> Result<()> {
        let Roots::Named(prog, reach) = roots else {
            return Ok(());
        };
        // An unknown function has no code of ours: the abstraction reports it.
        let Some(f) = prog.function_by_name(name) else {
            return Ok(());
        };
        if !self.proj.funcs.insert(f) {
            return Ok(());
        }
        for &o in reach.globals(f).iter() {
            // Functions share most of their globals: each rooted once per call (SQLite's
            // calls rooted some 1,000 globals each, 32 per function met, mostly again).
            if !self.proj.root_once(o) {
                continue;
            }
            let Some(gname) = crate::site::global_name(&prog.objects[o as usize].label) else {
                continue;
            };
            // A global the state lacks (a snapshot written with fewer) cannot be read.
            let Some(id) = s.global(gname) else { continue };
            if self.proj.globals.insert(id) {
                self.globals.push((gname.to_string(), id));
            }
            self.discover(id, s)?;
        }
        Ok(())
    }

    pub fn num_edges(&self) -> usize {
        self.objects
            .iter()
            .flat_map(|(_, s)| s)
            .map(|s| s.targets.len())
            .sum()
    }
}

/// What the projection has rooted so far.
#[derive(Clone, Debug, Default)]
struct Projection {
    /// Functions whose named globals are roots already.
    funcs: FxHashSet<crate::facts::FuncId>,
    /// Objects known to hold globals.
    globals: FxHashSet<StateObjId>,
    /// The program's global objects rooted through a function's names, as a bitset.
    rooted: Vec<u64>,
    /// Function names met as targets, by address (`Target::Function`).
    names: FxHashMap<usize, Arc<str>>,
}

impl Projection {
    /// Whether the program's object `o` was not rooted yet (it is now).
    fn root_once(&mut self, o: u32) -> bool {
        let (w, b) = (o as usize / 64, 1u64 << (o % 64));
        if w >= self.rooted.len() {
            self.rooted.resize(w + 1, 0);
        }
        let fresh = self.rooted[w] & b == 0;
        self.rooted[w] |= b;
        fresh
    }
}

/// A projected graph read back as a state: the objects it holds, with their slots (what a
/// dumped snapshot holds). The KLEE plugin analyses a call it dumps through this, so that
/// the state is read once. Objects the graph left opaque have no slots here.
impl SymbolicState for MemoryGraph {
    fn call(&self) -> Result<(&str, Vec<Option<Vec<Target>>>)> {
        Ok((&self.function, self.args.clone()))
    }

    fn globals(&self) -> Vec<(String, StateObjId)> {
        let mut v = self.globals.clone();
        v.sort_unstable();
        v
    }

    fn global(&self, name: &str) -> Option<StateObjId> {
        self.globals
            .iter()
            .find(|(g, _)| g == name)
            .map(|(_, id)| *id)
    }

    fn object(&self, id: StateObjId) -> Result<Option<StateObject>> {
        Ok(self
            .index
            .get(&id)
            .map(|&i| self.objects[i as usize].0.clone()))
    }

    fn pointer_slots(&self, id: StateObjId) -> Result<Vec<PointerSlot>> {
        Ok(self
            .index
            .get(&id)
            .map(|&i| self.objects[i as usize].1.clone())
            .unwrap_or_default())
    }
}
