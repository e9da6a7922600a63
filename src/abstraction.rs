//! The abstraction Abs(s) of a projected memory graph (paper 4.2-4.3).
//!
//! Every object that exists in the state gets a *unique* allocation site: its static site
//! plus its identity (`heap:table_insert:32@12`). Fields are mapped with AbsFld through the
//! layout of the object's type (arrays squeezed, struct fields kept); an object without a
//! known type, or pointed to at a symbolic offset, is field-insensitive. Objects the
//! analysed code allocates later keep the program's static sites. The result is an
//! admissible points-to graph: no site is both field-sensitive and field-insensitive.
//!
//! Globals keep the program's object (the code names it), relabelled `global:g@ID`; their
//! contents come from the state, not from the initialiser.

use crate::facts::{FuncId, LayoutId, ObjId, ObjKind, Program};
use crate::memory_graph::MemoryGraph;
use crate::state::{ObjType, StateObjId, Target};
use anyhow::{bail, Result};
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// Where an abstract object comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Origin {
    /// An object of the state (a unique site).
    Unique(StateObjId),
    /// A program object: a global of the state (unique by nature) or a static site
    /// brought in by an earlier skipped call's post-state.
    Program(ObjId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AbsObject {
    pub origin: Origin,
    /// The static site (`SITE`), for matching and for `--strip-unique`.
    pub site: Arc<str>,
    /// The object's identity in the state, if it comes from one (labels: `SITE@ID`).
    pub uid: Option<StateObjId>,
    pub kind: ObjKind,
    /// Layout of the object's type; None: field-insensitive.
    pub layout: Option<LayoutId>,
    /// Its contents were not read (an on-demand projection had no need for them): the
    /// state gives no edges out of it, and reuse matches it only with an opaque object.
    pub opaque: bool,
}

impl AbsObject {
    /// `SITE@ID` for objects of the state, `SITE` for static sites.
    pub fn label(&self) -> String {
        crate::site::object(&self.site, self.uid)
    }
}

/// An abstract location: field `field` of abstract object `obj` (0 when field-insensitive),
/// or a function (for function pointers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AbsLoc {
    Field { obj: u32, field: u32 },
    Func(FuncId),
}

/// An initial abstract state: the input of one past-sensitive analysis.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AbstractState {
    pub function: FuncId,
    pub objects: Vec<AbsObject>,
    /// Per actual argument, what it may point to (empty: no pointer).
    pub args: Vec<Vec<AbsLoc>>,
    /// Points-to edges between fields (holder -> target), sorted, no duplicates.
    pub edges: Vec<(AbsLoc, AbsLoc)>,
}

/// Counters of one abstraction.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct AbsStats {
    pub state_objects: usize,
    pub projected_objects: usize,
    /// Projected objects whose contents were never read (on-demand projection).
    pub opaque_objects: usize,
    pub abstract_objects: usize,
    pub edges: usize,
    pub field_insensitive: usize,
    pub symbolic_offsets: usize,
    /// 1 when some value may point anywhere (the `unknown` object is in the state).
    pub unknown: usize,
}

/// The site of the object standing for "anywhere" (`Target::Unknown`), and its id (no
/// state object has it: KLEE's ids and snapshots' are small).
pub use crate::site::UNKNOWN as UNKNOWN_SITE;
pub const UNKNOWN_ID: StateObjId = u64::MAX;

impl AbstractState {
    pub fn nfields(&self, prog: &Program, obj: u32) -> u32 {
        match self.objects[obj as usize].layout {
            Some(l) => prog.layouts[l as usize].abs_size(),
            None => 1,
        }
    }

    /// Abs(G^p_s): `layouts` gives the layout of each type name the graph uses (resolved by
    /// the caller, who may need the LLVM module for it).
    pub fn abstract_graph(
        prog: &Program,
        g: &MemoryGraph,
        layout_of: &dyn Fn(&ObjType) -> Option<LayoutId>,
    ) -> Result<(AbstractState, AbsStats)> {
        let Some(function) = prog.function_by_name(&g.function) else {
            bail!("unknown function `{}`", g.function);
        };
        if !prog.functions[function as usize].defined {
            bail!("function `{}` has no body in the module", g.function);
        }
        let mut st = AbsStats {
            projected_objects: g.objects.len(),
            ..Default::default()
        };
        let mut a = AbstractState {
            function,
            ..Default::default()
        };
        let globals: FxHashSet<StateObjId> = g.globals.iter().map(|(_, id)| *id).collect();
        for (i, (o, _)) in g.objects.iter().enumerate() {
            let id = &o.id;
            let kind = crate::site::kind(&o.site);
            let mut layout = match &o.ty {
                None => None,
                Some(t) => match (layout_of(t), t) {
                    (Some(l), _) => Some(l),
                    (None, t) => match t.split().1 {
                        ObjType::Named(name) => bail!("object {}: unknown type `{}`", id, name),
                        _ => None,
                    },
                },
            };
            let origin = if globals.contains(id) {
                // The object of a global is labelled `global:NAME`, the program's label.
                match prog.object_by_label(&o.site) {
                    Some(po) => {
                        // The code addresses the program's object; its layout wins.
                        layout = prog.objects[po as usize].layout;
                        Origin::Program(po)
                    }
                    None => bail!(
                        "global `{}` is not in the module",
                        crate::site::global_name(&o.site).unwrap_or(&o.site)
                    ),
                }
            } else {
                Origin::Unique(*id)
            };
            if g.symbolic_offset.contains(id) {
                st.symbolic_offsets += 1;
                layout = None;
            }
            if layout.is_none() {
                st.field_insensitive += 1;
            }
            let opaque = !g.fetched[i];
            st.opaque_objects += opaque as usize;
            a.objects.push(AbsObject {
                origin,
                site: o.site.clone(),
                uid: Some(*id),
                kind,
                layout,
                opaque,
            });
        }
        // Values that may point anywhere (see `Target::Unknown`) point to one object,
        // `unknown`, field-insensitive and pointing to itself: whatever is loaded through
        // it is unknown again, so every access the call makes through such a value lands
        // in its mod/ref as `unknown.*`, which clients read as "may touch anything".
        let has_unknown = g
            .args
            .iter()
            .flatten()
            .flatten()
            .chain(
                g.objects
                    .iter()
                    .flat_map(|(_, sl)| sl.iter().flat_map(|s| &s.targets)),
            )
            .any(|t| *t == Target::Unknown);
        let unknown = has_unknown.then(|| {
            let i = a.objects.len() as u32;
            a.objects.push(AbsObject {
                origin: Origin::Unique(UNKNOWN_ID),
                site: Arc::from(UNKNOWN_SITE),
                uid: None,
                kind: ObjKind::Heap,
                layout: None,
                opaque: false,
            });
            AbsLoc::Field { obj: i, field: 0 }
        });
        let loc = |a: &AbstractState, t: &Target| -> Result<Option<AbsLoc>> {
            Ok(match t {
                Target::Null => None,
                Target::Unknown => unknown,
                Target::Function(f) => match prog.function_by_name(f) {
                    Some(fid) => Some(AbsLoc::Func(fid)),
                    None => bail!("unknown function `{}`", f),
                },
                Target::Object { id, offset } => {
                    let obj = g.index[id];
                    Some(AbsLoc::Field {
                        obj,
                        field: a.field_of(prog, obj, offset.unwrap_or(0)),
                    })
                }
            })
        };
        for arg in &g.args {
            let mut v = Vec::new();
            for t in arg.iter().flatten() {
                if let Some(l) = loc(&a, t)? {
                    v.push(l);
                }
            }
            v.sort();
            v.dedup();
            a.args.push(v);
        }
        let mut edges = Vec::with_capacity(g.num_edges());
        for (obj, (_, slots)) in g.objects.iter().enumerate() {
            let obj = obj as u32;
            for s in slots {
                let holder = AbsLoc::Field {
                    obj,
                    field: a.field_of(prog, obj, s.offset),
                };
                for t in &s.targets {
                    if let Some(l) = loc(&a, t)? {
                        edges.push((holder, l));
                    }
                }
            }
        }
        if let Some(u) = unknown {
            edges.push((u, u));
            st.unknown = 1;
        }
        edges.sort_unstable();
        edges.dedup();
        a.edges = edges;
        st.abstract_objects = a.objects.len();
        st.edges = a.edges.len();
        a.debug_check();
        Ok((a, st))
    }

    /// The invariants every abstract state keeps (checked in debug builds after each
    /// change): edges sorted without duplicates, every edge and argument naming an object
    /// of the state, and a field-insensitive object named by its field 0 only
    /// (admissible, paper 4.2).
    pub fn debug_check(&self) {
        if !cfg!(debug_assertions) {
            return;
        }
        let ok = |l: &AbsLoc| match l {
            AbsLoc::Field { obj, field } => self
                .objects
                .get(*obj as usize)
                .is_some_and(|o| o.layout.is_some() || *field == 0),
            AbsLoc::Func(_) => true,
        };
        assert!(
            self.edges.windows(2).all(|w| w[0] < w[1]),
            "abstract edges sorted, no duplicates"
        );
        assert!(
            self.edges.iter().all(|(h, t)| ok(h) && ok(t)),
            "abstract edges name fields of the state's objects (field 0 of an insensitive one)"
        );
        assert!(
            self.args.iter().flatten().all(ok),
            "arguments point into the state's objects"
        );
    }

    /// AbsFld of byte `off` of abstract object `obj`.
    pub fn field_of(&self, prog: &Program, obj: u32, off: u64) -> u32 {
        match self.objects[obj as usize].layout {
            Some(l) => prog.layouts[l as usize].field_at(off as i64),
            None => 0,
        }
    }

    /// Merge an earlier skipped call's post-state (paper 6.2): its objects and edges join
    /// this state; an object field-insensitive in either becomes field-insensitive.
    pub fn merge(&mut self, post: &PostState) {
        let mut index: FxHashMap<Origin, u32> = self
            .objects
            .iter()
            .enumerate()
            .map(|(i, o)| (o.origin, i as u32))
            .collect();
        let mut map = Vec::with_capacity(post.objects.len());
        let mut collapse = Vec::new();
        for o in &post.objects {
            let i = match index.get(&o.origin) {
                Some(&i) => i,
                None => {
                    let i = self.objects.len() as u32;
                    self.objects.push(o.clone());
                    index.insert(o.origin, i);
                    i
                }
            };
            if o.layout.is_none() && self.objects[i as usize].layout.is_some() {
                collapse.push(i);
            }
            map.push(i);
        }
        let tr = |l: AbsLoc| match l {
            AbsLoc::Field { obj, field } => AbsLoc::Field {
                obj: map[obj as usize],
                field,
            },
            f => f,
        };
        self.edges
            .extend(post.edges.iter().map(|&(h, t)| (tr(h), tr(t))));
        self.edges.sort_unstable();
        self.edges.dedup();
        for i in collapse {
            self.collapse(i);
        }
        self.debug_check();
    }

    /// Drop the objects past the first `keep` that nothing kept points to: what merged
    /// post-states brought that the call cannot reach (an older skip's globals the callee
    /// never names). They could not change the answer, and would only make states differ
    /// (reuse misses, WIT colours of locations no write of the call touches).
    pub fn retain_reachable(&mut self, keep: usize) {
        let n = self.objects.len();
        if n <= keep {
            return;
        }
        let mut live = vec![false; n];
        let mut stack: Vec<u32> = (0..keep as u32).collect();
        let obj = |l: &AbsLoc| match l {
            AbsLoc::Field { obj, .. } => Some(*obj),
            AbsLoc::Func(_) => None,
        };
        stack.extend(self.args.iter().flatten().filter_map(obj));
        let mut out: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (h, t) in &self.edges {
            if let (Some(h), Some(t)) = (obj(h), obj(t)) {
                out[h as usize].push(t);
            }
        }
        while let Some(o) = stack.pop() {
            if std::mem::replace(&mut live[o as usize], true) {
                continue;
            }
            stack.extend(
                out[o as usize]
                    .iter()
                    .copied()
                    .filter(|&t| !live[t as usize]),
            );
        }
        if live.iter().all(|&l| l) {
            return;
        }
        let mut map = vec![u32::MAX; n];
        let mut objects = Vec::with_capacity(n);
        for (i, o) in std::mem::take(&mut self.objects).into_iter().enumerate() {
            if live[i] {
                map[i] = objects.len() as u32;
                objects.push(o);
            }
        }
        self.objects = objects;
        let tr = |l: AbsLoc| match l {
            AbsLoc::Field { obj, field } => AbsLoc::Field {
                obj: map[obj as usize],
                field,
            },
            f => f,
        };
        // An edge out of a dropped object goes with it; every target of a kept one is kept.
        self.edges = std::mem::take(&mut self.edges)
            .into_iter()
            .filter(|(h, _)| obj(h).is_none_or(|o| live[o as usize]))
            .map(|(h, t)| (tr(h), tr(t)))
            .collect();
        for a in &mut self.args {
            for l in a.iter_mut() {
                *l = tr(*l);
            }
        }
        self.debug_check();
    }

    /// Make an object field-insensitive, keeping the state admissible.
    pub fn collapse(&mut self, obj: u32) {
        if self.objects[obj as usize].layout.is_none() {
            return;
        }
        self.objects[obj as usize].layout = None;
        let fix = |l: AbsLoc| match l {
            AbsLoc::Field { obj: o, .. } if o == obj => AbsLoc::Field { obj: o, field: 0 },
            l => l,
        };
        self.edges = self.edges.iter().map(|&(h, t)| (fix(h), fix(t))).collect();
        self.edges.sort_unstable();
        self.edges.dedup();
        for a in &mut self.args {
            for l in a.iter_mut() {
                *l = fix(*l);
            }
            a.sort();
            a.dedup();
        }
    }
}

/// What the memory may look like after an analysed call (the solver's final graph over
/// the objects of the state and the static objects), kept to be merged into the initial
/// state of a later call on the same path when this call was skipped.
#[derive(Clone, Debug, Default)]
pub struct PostState {
    pub objects: Vec<AbsObject>,
    pub edges: Vec<(AbsLoc, AbsLoc)>,
}

impl PostState {
    /// What memory may look like after this call and after `newer`'s: both graphs, objects
    /// matched by origin (field-insensitive where either is). A path's pending skips are
    /// carried as one such union, so that an analysis joins one post-state, not one per
    /// pending call (they overlap: hundreds of pending calls on a libtasn1 path).
    pub fn union(&self, newer: &PostState) -> PostState {
        let mut a = AbstractState {
            objects: self.objects.clone(),
            edges: self.edges.clone(),
            ..Default::default()
        };
        a.merge(newer);
        PostState {
            objects: a.objects,
            edges: a.edges,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(id: StateObjId) -> AbsObject {
        AbsObject {
            origin: Origin::Unique(id),
            site: format!("heap:f:{id}").into(),
            uid: Some(id),
            kind: ObjKind::Heap,
            layout: None,
            opaque: false,
        }
    }

    fn at(obj: u32) -> AbsLoc {
        AbsLoc::Field { obj, field: 0 }
    }

    /// The union of two post-states matches objects by origin: 11 is in both (one object),
    /// with the edges of both; 10 and 12 come one from each. An object field-insensitive
    /// in either is field-insensitive in the union.
    #[test]
    fn union_of_post_states_matches_objects_by_origin() {
        let mut layered = object(11);
        layered.layout = Some(0);
        let older = PostState {
            objects: vec![object(10), layered],
            edges: vec![(at(1), at(0))],
        };
        let newer = PostState {
            objects: vec![object(11), object(12)],
            edges: vec![(at(0), at(1))],
        };
        let u = older.union(&newer);
        let ids: Vec<_> = u.objects.iter().map(|o| o.uid.unwrap()).collect();
        assert_eq!(ids, vec![10, 11, 12]);
        // older: 11 -> 10; newer: 11 -> 12 (renumbered: 11 is 1, 12 is 2).
        assert_eq!(u.edges, vec![(at(1), at(0)), (at(1), at(2))]);
        assert_eq!(
            u.objects[1].layout, None,
            "field-insensitive in the newer post-state"
        );
    }

    /// Objects 0 and 1 are the state's own; a merged post-state brought 2, 3 and 4. Object
    /// 1 points to 2, which points to 3: both reachable, kept (renumbered 2, 3). Object 4
    /// points to 3 but nothing points to 4: dropped with its edge. The state's own objects
    /// stay, reachable or not, and in their places.
    #[test]
    fn retain_reachable_drops_only_unreachable_merged_objects() {
        let mut a = AbstractState {
            objects: (10..15).map(object).collect(),
            edges: vec![(at(1), at(2)), (at(2), at(3)), (at(4), at(3))],
            args: vec![vec![at(0)]],
            ..Default::default()
        };
        a.edges.sort();
        a.retain_reachable(2);
        let ids: Vec<_> = a.objects.iter().map(|o| o.uid.unwrap()).collect();
        assert_eq!(ids, vec![10, 11, 12, 13]);
        assert_eq!(a.edges, vec![(at(1), at(2)), (at(2), at(3))]);
        assert_eq!(a.args, vec![vec![at(0)]]);
        // An argument reaching a merged object keeps it.
        let mut b = AbstractState {
            objects: (10..13).map(object).collect(),
            args: vec![vec![at(2)]],
            ..Default::default()
        };
        b.retain_reachable(1);
        assert_eq!(b.objects.len(), 2);
        assert_eq!(b.args, vec![vec![at(1)]]);
    }
}
