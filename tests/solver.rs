//! The solver on hand-built facts (no LLVM): initial graphs, entry functions, cycles,
//! collapse. Expected sets follow from the constraints written next to them.

use pspa::facts::*;
use pspa::layout::{LType, Layout};
use pspa::solver::Solver;

fn obj(p: &mut Program, label: &str, layout: Option<LayoutId>) -> ObjId {
    p.add_object(Object {
        label: label.into(),
        kind: ObjKind::Global,
        layout,
        owner: None,
        func: None,
        readonly: false,
    })
}

fn func(p: &mut Program, name: &str, constraints: Vec<Constraint>) -> FuncId {
    let fobj = p.add_object(Object {
        label: format!("func:{name}").into(),
        kind: ObjKind::Func,
        layout: None,
        owner: None,
        func: None,
        readonly: false,
    });
    p.functions.push(Function {
        name: name.into(),
        defined: true,
        obj: fobj,
        constraints,
        ..Default::default()
    });
    (p.functions.len() - 1) as FuncId
}

/// struct { int *a; int *b; }
fn pair_layout(p: &mut Program) -> LayoutId {
    let ptr = LType::Prim { size: 8 };
    p.add_layout(Layout::new(
        "pair",
        LType::Struct {
            size: 16,
            members: vec![(0, ptr.clone()), (8, ptr)],
        },
    ))
}

fn labels(s: &Solver, n: u32) -> Vec<String> {
    let mut v: Vec<String> = s
        .points_to(n)
        .iter()
        .map(|l| {
            let o = s.obj_of(l);
            let f = if s.is_fi(o) {
                "*".to_string()
            } else {
                s.field_of(l).to_string()
            };
            format!("{}.{}", s.objs[o as usize].label, f)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn only_functions_reached_from_entries_are_solved() {
    let mut p = Program::default();
    let x = obj(&mut p, "global:x", None);
    let (v, w) = (p.new_var(), p.new_var());
    let f = func(
        &mut p,
        "f",
        vec![Constraint::AddrOf {
            dst: v,
            obj: x,
            offset: 0,
        }],
    );
    func(
        &mut p,
        "g",
        vec![Constraint::AddrOf {
            dst: w,
            obj: x,
            offset: 0,
        }],
    );
    let mut s = Solver::new(&p);
    s.solve(&[f]);
    // f's constraint ran, g (not reachable from f) did not.
    assert_eq!(labels(&s, v), vec!["global:x.*"]);
    assert!(labels(&s, w).is_empty());
    assert_eq!(s.stats.live_functions, 1);
}

#[test]
fn seeded_initial_graph_is_the_starting_point() {
    // Initial state: v -> h (field 0 of a pair), h.b -> x. The entry loads h.b through
    // v + 8 into u: u must get x although no constraint of the program creates that edge.
    let mut p = Program::default();
    let pl = pair_layout(&mut p);
    let h = obj(&mut p, "heap:main:3", Some(pl));
    let x = obj(&mut p, "global:x", None);
    let (v, vb, u) = (p.new_var(), p.new_var(), p.new_var());
    let f = func(
        &mut p,
        "f",
        vec![
            Constraint::Gep {
                dst: vb,
                src: v,
                gep: Gep {
                    offset: 8,
                    strides: vec![],
                },
            },
            Constraint::Load {
                dst: u,
                ptr: vb,
                size: 8,
            },
        ],
    );
    let mut s = Solver::new(&p);
    s.seed_var(v, h, 0);
    s.seed_mem(h, 8, x, 0);
    s.solve(&[f]);
    assert_eq!(labels(&s, vb), vec!["heap:main:3.1"]);
    assert_eq!(labels(&s, u), vec!["global:x.*"]);
    // Field a was never written: it points nowhere.
    assert!(labels(&s, s.loc(h, 0)).is_empty());
}

#[test]
fn copy_cycles_are_merged_and_share_one_set() {
    let mut p = Program::default();
    let x = obj(&mut p, "global:x", None);
    let y = obj(&mut p, "global:y", None);
    let (a, b, c) = (p.new_var(), p.new_var(), p.new_var());
    let f = func(
        &mut p,
        "f",
        vec![
            Constraint::AddrOf {
                dst: a,
                obj: x,
                offset: 0,
            },
            Constraint::AddrOf {
                dst: c,
                obj: y,
                offset: 0,
            },
            Constraint::Copy { dst: b, src: a },
            // A second definition of b, so that b is not merged before solving.
            Constraint::AddrOf {
                dst: b,
                obj: x,
                offset: 0,
            },
            Constraint::Copy { dst: c, src: b },
            Constraint::Copy { dst: a, src: c },
        ],
    );
    let mut s = Solver::new(&p);
    s.solve(&[f]);
    // a -> b -> c -> a: all three hold x and y.
    for n in [a, b, c] {
        assert_eq!(labels(&s, n), vec!["global:x.*", "global:y.*"]);
    }
    assert_eq!(s.stats.merged_in_cycles, 2);
    assert_eq!(s.stats.merged_offline, 0);
}

#[test]
fn variables_defined_alike_are_merged_before_solving_and_keep_their_sets() {
    // p -> pair (fields a, b); pair.a -> x, pair.b -> y.
    // l1 = *p and l2 = *p (8 bytes): one set, {x}. l3 = *p reading 16 bytes sees both
    // fields: {x, y}, so it must stay apart. g1 = p + 8 and g2 = p + 8 point to pair.b.
    // c = l1 (a plain copy) is l1. m = *p but also m = &y: two definitions, kept apart,
    // {x, y}. The formal q is bound by calls and is never merged, even though its only
    // constraint in the body is q = &x.
    let mut p = Program::default();
    let lay = pair_layout(&mut p);
    let pair = obj(&mut p, "global:pair", Some(lay));
    let x = obj(&mut p, "global:x", None);
    let y = obj(&mut p, "global:y", None);
    let [ptr, l1, l2, l3, g1, g2, c, m, q, q2] = std::array::from_fn(|_| p.new_var());
    let gep8 = Gep {
        offset: 8,
        strides: vec![],
    };
    let f = func(
        &mut p,
        "f",
        vec![
            Constraint::AddrOf {
                dst: ptr,
                obj: pair,
                offset: 0,
            },
            Constraint::Load {
                dst: l1,
                ptr,
                size: 8,
            },
            Constraint::Load {
                dst: l2,
                ptr,
                size: 8,
            },
            Constraint::Load {
                dst: l3,
                ptr,
                size: 16,
            },
            Constraint::Gep {
                dst: g1,
                src: ptr,
                gep: gep8.clone(),
            },
            Constraint::Gep {
                dst: g2,
                src: ptr,
                gep: gep8,
            },
            Constraint::Copy { dst: c, src: l1 },
            Constraint::Load {
                dst: m,
                ptr,
                size: 8,
            },
            Constraint::AddrOf {
                dst: m,
                obj: y,
                offset: 0,
            },
            Constraint::AddrOf {
                dst: q,
                obj: x,
                offset: 0,
            },
            Constraint::AddrOf {
                dst: q2,
                obj: x,
                offset: 0,
            },
        ],
    );
    p.functions[f as usize].formals = vec![Some(q)];
    p.init = vec![(pair, 0, x, 0), (pair, 8, y, 0)];
    let mut s = Solver::new(&p);
    s.solve(&[f]);
    assert_eq!(labels(&s, l1), vec!["global:x.*"]);
    assert_eq!(labels(&s, l2), vec!["global:x.*"]);
    assert_eq!(labels(&s, c), vec!["global:x.*"]);
    assert_eq!(labels(&s, l3), vec!["global:x.*", "global:y.*"]);
    assert_eq!(labels(&s, g1), vec!["global:pair.1"]);
    assert_eq!(labels(&s, g2), vec!["global:pair.1"]);
    assert_eq!(labels(&s, m), vec!["global:x.*", "global:y.*"]);
    assert_eq!(labels(&s, q), vec!["global:x.*"]);
    let same = |a: u32, b: u32| s.find_ro(a) == s.find_ro(b);
    assert!(same(l1, l2) && same(l1, c) && same(g1, g2));
    assert!(!same(l1, l3) && !same(l1, m) && !same(q, q2));
    // l2, c and g2 merged offline.
    assert_eq!(s.stats.merged_offline, 3);
}

#[test]
fn unknown_offset_collapses_the_object_and_keeps_it_admissible() {
    // p -> pair.0; q = p + 8*i (stride 8 is not a multiple of the pair's 16): unknown
    // field. Stores through q may hit either field: the pair becomes field-insensitive and
    // every pointer to it is `.*` (no site has both field and `*` nodes).
    let mut p = Program::default();
    let pl = pair_layout(&mut p);
    let h = obj(&mut p, "heap:main:3", Some(pl));
    let x = obj(&mut p, "global:x", None);
    let (v, q, t, r) = (p.new_var(), p.new_var(), p.new_var(), p.new_var());
    let f = func(
        &mut p,
        "f",
        vec![
            Constraint::AddrOf {
                dst: v,
                obj: h,
                offset: 0,
            },
            Constraint::Gep {
                dst: q,
                src: v,
                gep: Gep {
                    offset: 0,
                    strides: vec![8],
                },
            },
            Constraint::AddrOf {
                dst: t,
                obj: x,
                offset: 0,
            },
            Constraint::Store {
                ptr: q,
                src: t,
                size: 8,
            },
            Constraint::Load {
                dst: r,
                ptr: v,
                size: 8,
            },
        ],
    );
    let mut s = Solver::new(&p);
    s.solve(&[f]);
    assert!(s.is_fi(h));
    assert_eq!(labels(&s, v), vec!["heap:main:3.*"]);
    assert_eq!(labels(&s, r), vec!["global:x.*"]);
    assert_eq!(s.stats.collapsed_objects, 1);
}

#[test]
fn constant_memory_is_never_written() {
    // p may point to a string literal (read-only) or to a buffer; `*p = q` can only have
    // written the buffer: a store into constant memory faults, so no execution that goes
    // on carries q in the literal. Without this, one imprecise `char *` made every
    // literal of SQLite a hub.
    let mut p = Program::default();
    let lit = p.add_object(Object {
        label: "global:.str".into(),
        kind: ObjKind::Global,
        layout: None,
        owner: None,
        func: None,
        readonly: true,
    });
    let buf = obj(&mut p, "heap:main:5", None);
    let x = obj(&mut p, "global:x", None);
    let (ptr, q, r) = (p.new_var(), p.new_var(), p.new_var());
    let f = func(
        &mut p,
        "f",
        vec![
            Constraint::AddrOf {
                dst: ptr,
                obj: lit,
                offset: 0,
            },
            Constraint::AddrOf {
                dst: ptr,
                obj: buf,
                offset: 0,
            },
            Constraint::AddrOf {
                dst: q,
                obj: x,
                offset: 0,
            },
            Constraint::Store {
                ptr,
                src: q,
                size: 8,
            },
            Constraint::MemCopy {
                dst: ptr,
                src: ptr,
                size: None,
            },
            Constraint::Load {
                dst: r,
                ptr,
                size: 8,
            },
        ],
    );
    let mut s = Solver::new(&p);
    s.solve(&[f]);
    assert!(labels(&s, s.loc(lit, 0)).is_empty());
    assert_eq!(labels(&s, s.loc(buf, 0)), vec!["global:x.*"]);
    assert_eq!(labels(&s, r), vec!["global:x.*"]);
}

#[test]
fn code_is_never_in_a_mod_or_ref_set() {
    // p may point to a buffer or to a function (a `void *` that once held a callback);
    // a whole-object write through p (memset-like) and a deep read can touch the buffer
    // only: a function's bytes are code, not data.
    let mut p = Program::default();
    let buf = obj(&mut p, "global:buf", None);
    let ptr = p.new_var();
    let g = func(&mut p, "g", vec![]);
    let gobj = p.functions[g as usize].obj;
    let f = func(
        &mut p,
        "f",
        vec![
            Constraint::AddrOf {
                dst: ptr,
                obj: buf,
                offset: 0,
            },
            Constraint::AddrOf {
                dst: ptr,
                obj: gobj,
                offset: 0,
            },
        ],
    );
    p.functions[f as usize].accesses = vec![
        Access {
            ptr,
            size: None,
            write: true,
        },
        Access {
            ptr,
            size: Some(8),
            write: false,
        },
    ];
    let mut s = Solver::new(&p);
    s.solve(&[f]);
    let mr = pspa::modref::compute(&s);
    let names = |set: &roaring::RoaringBitmap| -> Vec<String> {
        set.iter()
            .map(|l| s.objs[s.obj_of(l) as usize].label.to_string())
            .collect()
    };
    assert_eq!(names(&mr.modset[f as usize]), vec!["global:buf"]);
    assert_eq!(names(&mr.refset[f as usize]), vec!["global:buf"]);
}

#[test]
fn a_load_walks_only_where_its_value_goes_on() {
    // p -> pair. l1 = *p is only defined (compared, at most): pair.a is loaded, not
    // walked. In g, l2 = *p (8 bytes, the same load) goes on into c: merged offline into
    // l1, it makes l1's load walk, from what it had read too. m = *(&pair.b) goes on into
    // d: pair.b is walked. What walks is what the on-demand projection follows.
    let mut p = Program::default();
    let lay = pair_layout(&mut p);
    let pair = obj(&mut p, "global:pair", Some(lay));
    let [ptr, l1, l2, c, g8, m, d] = std::array::from_fn(|_| p.new_var());
    let load = |dst, ptr| Constraint::Load { dst, ptr, size: 8 };
    let f = func(
        &mut p,
        "f",
        vec![
            Constraint::AddrOf {
                dst: ptr,
                obj: pair,
                offset: 0,
            },
            load(l1, ptr),
        ],
    );
    let g = func(
        &mut p,
        "g",
        vec![
            load(l2, ptr),
            Constraint::Copy { dst: c, src: l2 },
            Constraint::AddrOf {
                dst: g8,
                obj: pair,
                offset: 8,
            },
            load(m, g8),
            Constraint::Copy { dst: d, src: m },
        ],
    );
    let field = |s: &Solver, f: u32| s.field_range(pair).start + f;
    // f alone: pair.a loaded, nothing walked. Then g, activated by a second solve: l2
    // merges into l1 after l1's load was applied, and neither pts(p) nor the constraints
    // on p change again, so pair.a must join the walks at the merge. (c and d are plain
    // copies: merged too.)
    let mut s = Solver::new(&p);
    s.track_reads();
    s.solve(&[f]);
    assert!(s.loads().contains(field(&s, 0)));
    assert!(s.walks().is_empty());
    s.solve(&[g]);
    assert_eq!(s.stats.merged_offline, 3);
    assert_eq!(s.find_ro(l1), s.find_ro(l2));
    assert!(s.walks().contains(field(&s, 0)));
    assert!(s.walks().contains(field(&s, 1)));
}
