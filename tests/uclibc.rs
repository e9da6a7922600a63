//! Every model that replaces a libc body (`models::BODY_REPLACED`) against that body as
//! klee-uclibc defines it (issue 25: a model may replace a body only with the body's
//! effects). KLEE's `--libc=uclibc` links `libc.a`, an archive of LLVM bitcode objects; the
//! members defining those functions (and whatever they need) are linked into one module.
//!
//! For each function F the module defines, the naive reference solver (src/reference.rs)
//! runs F from a generic entry: each pointer formal k points to a fresh object `arg:F:k`,
//! which points to a fresh object `arg:F:k:target` (contents a copy may carry). Twice: as
//! the analysis sees F (its body replaced by its model, the model applied to its formals),
//! and with the replacement off (the models of the replaced functions dropped, so F's
//! body, and the bodies of the replaced functions it calls, are analysed). The body's
//! effects must be the model's or fewer: what it writes, reads and frees (its own locals
//! and its callees' are left out by mod/ref), what it returns (for the functions that
//! return a pointer), and what it stores into memory that outlives it.
//!
//! A `size_t` result is left out: the front end takes a pointer-sized integer to carry the
//! pointers it is computed from, so `return p - s` gives strlen's result `s`'s target; no
//! program dereferences a length, and a model that said so would only spread the sets of
//! every string's length to where it is stored.
//!
//! uclibc is found at `$KLEE_UCLIBC_DIR` (its `lib/libc.a`), else `/opt/klee/uclibc`;
//! without it the test prints `SKIPPED: uclibc not found at ...` and passes. The LLVM 14
//! tools `llvm-nm-14`, `llvm-ar-14` and `llvm-link-14` must be on the path.

use pspa::facts::{Constraint, FuncId, ObjKind, Object, Program};
use pspa::models::{Model, BODY_REPLACED};
use pspa::reference::{MemCopyMode, RefModRef, Reference};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn uclibc_archive() -> PathBuf {
    let dir = std::env::var_os("KLEE_UCLIBC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/opt/klee/uclibc"));
    dir.join("lib/libc.a")
}

fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} does not run: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The archive's members, each with the symbols it defines and those it needs
/// (`llvm-nm` output: `member.os:` headings, then `ADDR TYPE NAME` or `TYPE NAME` lines).
fn members(archive: &Path) -> Vec<(String, BTreeSet<String>, BTreeSet<String>)> {
    let nm = run(Command::new("llvm-nm-14").arg(archive));
    let mut out: Vec<(String, BTreeSet<String>, BTreeSet<String>)> = Vec::new();
    for line in nm.lines() {
        if let Some(m) = line.strip_suffix(':').filter(|l| !l.contains(' ')) {
            out.push((m.to_string(), BTreeSet::new(), BTreeSet::new()));
            continue;
        }
        let w: Vec<&str> = line.split_whitespace().collect();
        let (Some(last), [.., kind, name]) = (out.last_mut(), w.as_slice()) else {
            continue;
        };
        match *kind {
            "U" | "w" | "v" => last.2.insert(name.to_string()),
            _ => last.1.insert(name.to_string()),
        };
    }
    out
}

/// One module of the members defining `names` and, as a linker would pull them, the
/// members defining what those need.
fn link(archive: &Path, names: &[&str], dir: &Path) -> PathBuf {
    let ms = members(archive);
    let definer = |sym: &str| ms.iter().position(|(_, defs, _)| defs.contains(sym));
    let mut chosen: BTreeSet<usize> = names.iter().filter_map(|n| definer(n)).collect();
    let mut work: Vec<usize> = chosen.iter().copied().collect();
    while let Some(m) = work.pop() {
        for u in &ms[m].2 {
            if let Some(d) = definer(u) {
                if chosen.insert(d) {
                    work.push(d);
                }
            }
        }
    }
    assert!(
        !chosen.is_empty(),
        "{} defines none of {names:?}",
        archive.display()
    );
    let files: Vec<&str> = chosen.iter().map(|&m| ms[m].0.as_str()).collect();
    run(Command::new("llvm-ar-14")
        .current_dir(dir)
        .arg("x")
        .arg(archive)
        .args(&files));
    let out = dir.join("uclibc-bodies.bc");
    run(Command::new("llvm-link-14")
        .current_dir(dir)
        .args(&files)
        .arg("-o")
        .arg(&out));
    out
}

/// The functions of the module `bc` whose result is a pointer (`define ... T* @name(`).
fn pointer_results(bc: &Path) -> BTreeSet<String> {
    let ll = run(Command::new("llvm-dis-14").arg(bc).arg("-o").arg("-"));
    ll.lines()
        .filter(|l| l.starts_with("define "))
        .filter_map(|l| {
            let (head, _) = l.split_once('(')?;
            let (before, name) = head.rsplit_once(" @")?;
            let ty = before.split_whitespace().last()?;
            (ty.ends_with('*') || ty == "ptr").then(|| name.to_string())
        })
        .collect()
}

/// `prog` with a generic entry into `f`: each pointer formal k points to a fresh object
/// `arg:F:k`, which points to a fresh `arg:F:k:target`.
fn generic_entry(prog: &Program, f: FuncId) -> Program {
    let mut p = prog.clone();
    let name = p.functions[f as usize].name.clone();
    let formals = p.functions[f as usize].formals.clone();
    let fresh = |p: &mut Program, label: String| {
        p.add_object(Object {
            label: label.into(),
            kind: ObjKind::Heap,
            layout: None,
            owner: None,
            func: None,
            readonly: false,
        })
    };
    for (k, v) in formals.iter().enumerate() {
        let Some(v) = *v else { continue };
        let arg = fresh(&mut p, format!("arg:{name}:{k}"));
        let target = fresh(&mut p, format!("arg:{name}:{k}:target"));
        p.init.push((arg, 0, target, 0));
        p.init_constraints.push(Constraint::AddrOf {
            dst: v,
            obj: arg,
            offset: 0,
        });
    }
    p
}

/// What one run of `f` does, by object label.
#[derive(Debug, Default)]
struct Effects {
    modset: BTreeSet<String>,
    refset: BTreeSet<String>,
    freeset: BTreeSet<String>,
    ret: BTreeSet<String>,
    /// (holder, target) for memory that outlives the call (not stack objects).
    mem: BTreeSet<(String, String)>,
}

fn effects(p: &Program, f: FuncId) -> Effects {
    let r = Reference::solve(p, &[f], MemCopyMode::Pairwise);
    let mr: RefModRef = r.modref();
    let label = |o: u32| r.objects[o as usize].label.to_string();
    let objs = |s: &BTreeSet<(u32, u32)>| s.iter().map(|&(o, _)| label(o)).collect();
    let mem = r
        .mem
        .iter()
        .filter(|((o, _), _)| r.objects[*o as usize].kind != ObjKind::Stack)
        .flat_map(|((o, _), ts)| ts.iter().map(move |&(t, _)| (*o, t)))
        .map(|(o, t)| (label(o), label(t)))
        .collect();
    let func = &p.functions[f as usize];
    Effects {
        modset: objs(&mr.modset[f as usize]),
        refset: objs(&mr.refset[f as usize]),
        freeset: objs(&mr.freeset[f as usize]),
        ret: func
            .ret
            .map(|v| objs(&r.points_to(pspa::reference::Var::Prog(v))))
            .unwrap_or_default(),
        mem,
    }
}

fn beyond<T: Ord + Clone + std::fmt::Debug>(
    what: &str,
    body: &BTreeSet<T>,
    model: &BTreeSet<T>,
) -> Option<String> {
    let extra: Vec<&T> = body.difference(model).collect();
    (!extra.is_empty()).then(|| format!("{what} {extra:?} (model: {model:?})"))
}

#[test]
fn body_models_cover_their_uclibc_bodies() {
    let archive = uclibc_archive();
    if !archive.exists() {
        eprintln!(
            "SKIPPED: uclibc not found at {} (set KLEE_UCLIBC_DIR)",
            archive.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bc = link(&archive, BODY_REPLACED, dir.path());
    let prog = Program::from_file(&bc, &Default::default()).unwrap();
    let pointer_result = pointer_results(&bc);
    assert!(pointer_result.contains("strcpy") && !pointer_result.contains("strlen"));
    // The same module with no body replaced: the bodies are analysed.
    let mut bodies = prog.clone();
    for func in &mut bodies.functions {
        if func.body_replaced() {
            func.model = None;
        }
    }
    let mut compared = Vec::new();
    let mut absent = Vec::new();
    let mut errors = Vec::new();
    let mut table: BTreeMap<&str, String> = BTreeMap::new();
    for &name in BODY_REPLACED {
        let Some(f) = prog
            .function_by_name(name)
            .filter(|&f| prog.functions[f as usize].defined)
        else {
            absent.push(name);
            continue;
        };
        let func = &prog.functions[f as usize];
        assert!(
            func.body_replaced() && !bodies.functions[f as usize].body_replaced(),
            "{name}: uclibc's definition is replaced by its model, and not once the models are dropped"
        );
        let Some(Model::Known(model_effects)) = func.model else {
            unreachable!()
        };
        let model = effects(&generic_entry(&prog, f), f);
        let mut body = effects(&generic_entry(&bodies, f), f);
        if !pointer_result.contains(name) {
            body.ret.clear();
        }
        // Not vacuous: the generic entry binds the formals, so the body touches its
        // arguments (every one of these functions reads or writes a buffer).
        if body.refset.is_empty() && body.modset.is_empty() {
            errors.push(format!("{name}: the body touches nothing: {body:?}"));
        }
        for e in [
            beyond("writes", &body.modset, &model.modset),
            beyond("reads", &body.refset, &model.refset),
            beyond("frees", &body.freeset, &model.freeset),
            beyond("returns", &body.ret, &model.ret),
            beyond("stores", &body.mem, &model.mem),
        ]
        .into_iter()
        .flatten()
        {
            errors.push(format!("{name}: its body {e}"));
        }
        table.insert(
            name,
            format!(
                "model {model_effects:?}: body mod {:?} ref {:?} ret {:?}; model mod {:?} ref {:?} ret {:?}",
                body.modset, body.refset, body.ret, model.modset, model.refset, model.ret
            ),
        );
        compared.push(name);
    }
    for (name, line) in &table {
        eprintln!("{name}: {line}");
    }
    eprintln!(
        "compared {} models with their uclibc bodies: {compared:?}; not defined by uclibc: {absent:?}",
        compared.len()
    );
    assert!(errors.is_empty(), "unsound models:\n{}", errors.join("\n"));
    // klee-uclibc defines most of them (bcopy, bzero, index, rindex and bcmp are not in
    // its archive as definitions).
    assert!(
        compared.len() >= 20,
        "only {} of the replaced functions found in {}",
        compared.len(),
        archive.display()
    );
}
