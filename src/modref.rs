//! Mod/ref sets: the abstract locations a function and its callees may write / read.
//!
//! Direct accesses come from loads, stores, memory intrinsics and library models; they are
//! closed over the call graph (bottom-up over its strongly connected components). A
//! function's own stack objects die with its frame, so they are left out of its sets and
//! of its callers' sets, unless the function is recursive: then an inner activation may
//! write an outer one's locals, which outlive the inner call, so its own sets keep them.
//! A call of a function whose body a model replaces has the model's effects where it is
//! made; the function's own sets are the model's over all its calls' arguments, and are not
//! closed into its callers'.

use crate::facts::{Access, FuncId, ObjId, ObjKind};
use crate::solver::{Node, Solver};
use roaring::RoaringBitmap;

#[derive(Clone, Debug, Default)]
pub struct ModRef {
    /// Indexed by function (the last entry is the pseudo-function for unknown code).
    pub modset: Vec<RoaringBitmap>,
    pub refset: Vec<RoaringBitmap>,
    /// May-free sets: the locations of the objects a function and its callees may free
    /// (all of an object's fields), a subset of its mod set.
    pub freeset: Vec<RoaringBitmap>,
    /// Objects whose contents a deep access walked (unknown code, `va_list`s): their
    /// pointers decide what the access reaches, so they count as read.
    pub walked: RoaringBitmap,
}

/// `ModRef::walked` alone (the objects the deep accesses walk): what an on-demand round
/// needs to know what it read. A round that reads more is solved again, so its sets are
/// never used and need not be computed.
pub fn walked(s: &Solver) -> RoaringBitmap {
    let mut walked = RoaringBitmap::new();
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = RoaringBitmap::new();
    for accs in &s.accesses {
        for (acc, deep) in accs {
            // The walk depends on the pointer alone.
            if *deep && seen.insert(s.find_ro(acc.ptr)) {
                out.clear();
                access_locs(s, acc, true, &mut out, &mut walked);
            }
        }
    }
    walked
}

/// Locations `size` bytes from `loc` cover (whole objects when size is None).
pub fn access_locs(
    s: &Solver,
    acc: &Access,
    deep: bool,
    out: &mut RoaringBitmap,
    walked: &mut RoaringBitmap,
) {
    let targets = s.points_to(acc.ptr);
    if deep {
        // Everything reachable from the pointer: walk the points-to graph over objects.
        let mut seen = RoaringBitmap::new();
        let mut work: Vec<Node> = targets.iter().collect();
        while let Some(l) = work.pop() {
            let o = s.obj_of(l);
            if !seen.insert(o) || s.objs[o as usize].is_code() {
                continue;
            }
            walked.insert(o);
            for f in s.field_range(o) {
                work.extend(s.points_to(f).iter());
            }
            // Constant memory is not written, but what it points to may be.
            if !acc.write || s.objs[o as usize].is_writable() {
                out.insert_range(s.field_range(o));
            }
        }
        return;
    }
    // Collected, then built sorted: one-by-one inserts into a large set cost a binary
    // search each.
    let mut locs: Vec<Node> = Vec::new();
    push_locs(s, acc, &mut locs);
    locs.sort_unstable();
    locs.dedup();
    *out |= RoaringBitmap::from_sorted_iter(locs).expect("sorted");
}

/// The locations a shallow access covers, pushed unsorted onto `locs`.
fn push_locs(s: &Solver, acc: &Access, locs: &mut Vec<Node>) {
    for l in s.points_to(acc.ptr).iter() {
        let ob = &s.objs[s.obj_of(l) as usize];
        if ob.is_code() {
            continue; // code is not data: no call reads or writes a function's bytes
        }
        if acc.write && !ob.is_writable() {
            continue; // writing constant memory faults: not a side effect of a returning call
        }
        match acc.size {
            None => locs.extend(s.field_range(s.obj_of(l))),
            Some(size) => locs.extend(s.covering(l, size).iter().map(|f| s.canon(f))),
        }
    }
}

/// One function's mod, ref and free sets: `compute(s)`'s entries for `f`, made from the
/// functions `f` reaches only, and without the sets of the others (a local analysis
/// answers its callee's; computing every live function's was a quarter of a small miss
/// of make's `vsnprintf`, 41 functions). `compute` is the reference it is checked against.
pub fn compute_for(s: &Solver, f: FuncId) -> [RoaringBitmap; 3] {
    let nf = s.callees.len();
    let sccs = crate::scc::tarjan(nf, std::iter::once(f), |g| &s.callees[g as usize]);
    let mut comp_of = vec![usize::MAX; nf];
    for (i, c) in sccs.iter().enumerate() {
        for &g in c {
            comp_of[g as usize] = i;
        }
    }
    // Locals of the reached functions, by component.
    let mut comp_locals = vec![RoaringBitmap::new(); sccs.len()];
    for (o, ob) in s.objs.iter().enumerate() {
        if let (ObjKind::Stack, Some(owner)) = (ob.kind, ob.owner) {
            if let Some(&ci) = comp_of.get(owner as usize).filter(|&&ci| ci != usize::MAX) {
                comp_locals[ci].insert_range(s.field_range(o as ObjId));
            }
        }
    }
    // What the deep walks visit: the demand's business (`walked`), unused here.
    let mut walked = RoaringBitmap::new();
    // (mod, ref, free) seen from outside each component, callees' components first.
    let mut out: Vec<[RoaringBitmap; 3]> = Vec::with_capacity(sccs.len());
    let mut keys: Vec<(Node, Option<u64>, bool, bool)> = Vec::new();
    let last = sccs.len() - 1;
    for (ci, comp) in sccs.iter().enumerate() {
        let [mut m, mut r, mut fr] = [
            RoaringBitmap::new(),
            RoaringBitmap::new(),
            RoaringBitmap::new(),
        ];
        let mut recursive = comp.len() > 1;
        // The component's distinct accesses: many go through one (merged) pointer node.
        keys.clear();
        for &g in comp {
            keys.extend(
                s.accesses[g as usize]
                    .iter()
                    .map(|(acc, deep)| (s.find_ro(acc.ptr), acc.size, acc.write, *deep)),
            );
        }
        keys.sort_unstable();
        keys.dedup();
        // Shallow accesses' locations collected and built sorted once (a set per access
        // was most of this function's time); deep walks go to the sets directly.
        let (mut mlocs, mut rlocs, mut flocs) = (Vec::new(), Vec::new(), Vec::new());
        for &(ptr, size, write, deep) in &keys {
            let acc = Access { ptr, size, write };
            if deep {
                access_locs(
                    s,
                    &acc,
                    true,
                    if write { &mut m } else { &mut r },
                    &mut walked,
                );
            } else {
                push_locs(s, &acc, if write { &mut mlocs } else { &mut rlocs });
            }
        }
        for &g in comp {
            for &ptr in &s.frees[g as usize] {
                let acc = Access {
                    ptr,
                    size: None,
                    write: true,
                };
                push_locs(s, &acc, &mut flocs);
            }
        }
        for (set, mut locs) in [(&mut m, mlocs), (&mut r, rlocs), (&mut fr, flocs)] {
            locs.sort_unstable();
            locs.dedup();
            *set |= RoaringBitmap::from_sorted_iter(locs).expect("sorted");
        }
        for &g in comp {
            for &h in &s.callees[g as usize] {
                let hc = comp_of[h as usize];
                if hc == ci {
                    recursive = true;
                } else if !s
                    .prog
                    .functions
                    .get(h as usize)
                    .is_some_and(|x| x.body_replaced())
                {
                    let [om, or, of] = &out[hc];
                    m |= om;
                    r |= or;
                    fr |= of;
                }
            }
        }
        // Callers never see a component's locals; `f`'s own sets keep them only when it
        // is recursive (see `compute`).
        if ci != last || !recursive {
            for x in [&mut m, &mut r, &mut fr] {
                *x -= &comp_locals[ci];
            }
        }
        if ci == last {
            return [m, r, fr];
        }
        out.push([m, r, fr]);
    }
    unreachable!("the root's component comes last")
}

pub fn compute(s: &Solver) -> ModRef {
    let nf = s.callees.len();
    let mut direct_mod = vec![RoaringBitmap::new(); nf];
    let mut direct_ref = vec![RoaringBitmap::new(); nf];
    // Many accesses go through the same (merged) pointer node: compute its locations once.
    let mut walked = RoaringBitmap::new();
    let mut cache: rustc_hash::FxHashMap<(Node, Option<u64>, bool, bool), RoaringBitmap> =
        Default::default();
    for f in 0..nf {
        for (acc, deep) in &s.accesses[f] {
            let key = (s.find_ro(acc.ptr), acc.size, acc.write, *deep);
            let locs = cache.entry(key).or_insert_with(|| {
                let mut out = RoaringBitmap::new();
                access_locs(s, acc, *deep, &mut out, &mut walked);
                out
            });
            let out = if acc.write {
                &mut direct_mod[f]
            } else {
                &mut direct_ref[f]
            };
            *out |= &*locs;
        }
    }
    let mut direct_free = vec![RoaringBitmap::new(); nf];
    for (f, free) in direct_free.iter_mut().enumerate() {
        for &ptr in &s.frees[f] {
            let acc = Access {
                ptr,
                size: None,
                write: true,
            };
            let key = (s.find_ro(ptr), None, true, false);
            let locs = cache.entry(key).or_insert_with(|| {
                let mut out = RoaringBitmap::new();
                access_locs(s, &acc, false, &mut out, &mut walked);
                out
            });
            *free |= &*locs;
        }
    }
    // Locals of each function.
    let mut locals = vec![RoaringBitmap::new(); nf];
    for (o, ob) in s.objs.iter().enumerate() {
        if let (ObjKind::Stack, Some(owner)) = (ob.kind, ob.owner) {
            locals[owner as usize].insert_range(s.field_range(o as ObjId));
        }
    }
    // Only functions the solve reached (and unknown code) can have effects: a local
    // analysis reaches few of a large module's functions.
    let roots = (0..nf as FuncId).filter(|&f| {
        f as usize == nf - 1 || s.live[f as usize] || !s.callees[f as usize].is_empty()
    });
    let sccs = crate::scc::tarjan(nf, roots, |f| &s.callees[f as usize]);
    let mut comp_of = vec![usize::MAX; nf];
    for (i, c) in sccs.iter().enumerate() {
        for &f in c {
            comp_of[f as usize] = i;
        }
    }
    let mut mr = ModRef {
        modset: vec![RoaringBitmap::new(); nf],
        refset: vec![RoaringBitmap::new(); nf],
        freeset: vec![RoaringBitmap::new(); nf],
        walked,
    };
    // A function whose body its model replaces: each call has the model's effects on its
    // own arguments, so its callers do not take its sets, which are the model's over the
    // arguments of all its calls (`Solver::apply_body_model`).
    let replaced: Vec<bool> = (0..nf)
        .map(|f| s.prog.functions.get(f).is_some_and(|x| x.body_replaced()))
        .collect();
    // What callers outside a function's component see: without the component's locals,
    // which die before control returns to them.
    let mut out_mod = vec![RoaringBitmap::new(); nf];
    let mut out_ref = vec![RoaringBitmap::new(); nf];
    let mut out_free = vec![RoaringBitmap::new(); nf];
    // Tarjan yields callees' components before their callers'.
    for (ci, comp) in sccs.iter().enumerate() {
        let mut m = RoaringBitmap::new();
        let mut r = RoaringBitmap::new();
        let mut fr = RoaringBitmap::new();
        let mut comp_locals = RoaringBitmap::new();
        let mut recursive = comp.len() > 1;
        for &f in comp {
            m |= &direct_mod[f as usize];
            r |= &direct_ref[f as usize];
            fr |= &direct_free[f as usize];
            comp_locals |= &locals[f as usize];
            for &g in &s.callees[f as usize] {
                if comp_of[g as usize] == ci {
                    recursive = true;
                } else if !replaced[g as usize] {
                    m |= &out_mod[g as usize];
                    r |= &out_ref[g as usize];
                    fr |= &out_free[g as usize];
                }
            }
        }
        let (em, er, ef) = (&m - &comp_locals, &r - &comp_locals, &fr - &comp_locals);
        debug_assert!(fr.is_subset(&m), "a free is a write");
        for &f in comp {
            // A recursive function keeps its locals: an inner activation may write an
            // outer one's, which outlive the inner call.
            mr.modset[f as usize] = if recursive { m.clone() } else { em.clone() };
            mr.refset[f as usize] = if recursive { r.clone() } else { er.clone() };
            mr.freeset[f as usize] = if recursive { fr.clone() } else { ef.clone() };
            out_mod[f as usize] = em.clone();
            out_ref[f as usize] = er.clone();
            out_free[f as usize] = ef.clone();
        }
    }
    mr
}
