//! Write summaries (src/writeless.rs): by hand on tests/fixtures/writeless.c, and against
//! the whole-program analysis on every C fixture (an independent oracle: what the
//! summaries claim without points-to sets, its sets must agree with).

use pspa::facts::Program;
use pspa::session::{CallOptions, Session, SessionOptions};
use pspa::state::{PointerSlot, StateObjId, StateObject, SymbolicState, Target};
use pspa::writeless::{summaries, writeless, Why};
use std::path::Path;

mod common;
use common::c_files;

fn fixture(name: &str) -> Program {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    Program::from_file(&p, &Default::default()).unwrap()
}

fn summary_of(prog: &Program, sums: &[Result<u64, Why>], name: &str) -> Result<u64, Why> {
    let f = prog
        .function_by_name(name)
        .unwrap_or_else(|| panic!("no {name}"));
    sums[f as usize]
}

#[test]
fn summaries_by_hand() {
    let prog = fixture("tests/fixtures/writeless.c");
    let sums = summaries(&prog, false);
    let s = |n| summary_of(&prog, &sums, n);
    // Loads only; its stores go to its own slots (`p`, the parameter's copy).
    assert_eq!(s("find_up"), Ok(0));
    // strncpy's model writes its first argument, the local `buf`.
    assert_eq!(s("hash_local"), Ok(0));
    // strcpy writes what `dst` points to: the caller's object, parameter 0.
    assert_eq!(s("copy_name"), Ok(1));
    // copy_name writes its own `key`; the other callees write nothing.
    assert_eq!(s("lookup"), Ok(0));
    assert_eq!(s("set_value"), Ok(1));
    // `q`'s slot holds only the parameter: a write through it is a write of parameter 0.
    assert_eq!(s("set_via_local"), Ok(1));
    // A pointer loaded through the parameter may point anywhere.
    assert_eq!(s("set_left_value"), Err(Why::WritesElsewhere));
    assert_eq!(s("bump"), Err(Why::WritesElsewhere));
    // set_value applied to `root`, loaded from a global.
    assert_eq!(s("set_root"), Err(Why::WritesElsewhere));
    // set_value applied to its own `tmp`.
    assert_eq!(s("local_node"), Ok(0));
    assert_eq!(s("drop"), Err(Why::Calls));
    assert_eq!(s("apply"), Err(Why::Calls));
    assert_eq!(s("depth"), Err(Why::Recursive));
    // It calls `depth`, which is never summarised (a cycle), so neither is main.
    assert_eq!(s("main"), Err(Why::Recursive));
    let w = writeless(&prog, false);
    let names: Vec<&str> = prog
        .functions
        .iter()
        .zip(&w)
        .filter(|(_, &w)| w)
        .map(|(f, _)| f.name.as_str())
        .collect();
    let mut names = names;
    names.sort();
    assert_eq!(names, ["find_up", "hash_local", "local_node", "lookup"]);
}

/// A call of `function` in a state that knows nothing: every pointer argument may point
/// anywhere (`Target::Unknown`, which the abstraction makes a self-pointing `unknown`
/// object), no object but the globals the analysis reads at their initial contents. The
/// most any state can be, so whatever a summary claims for every state must hold here.
struct TopState<'p> {
    prog: &'p Program,
    function: &'p str,
}

impl SymbolicState for TopState<'_> {
    fn call(&self) -> anyhow::Result<(&str, Vec<Option<Vec<Target>>>)> {
        let f = self.prog.function_by_name(self.function).unwrap();
        let args = self.prog.functions[f as usize]
            .formals
            .iter()
            .map(|v| v.map(|_| vec![Target::Unknown]))
            .collect();
        Ok((self.function, args))
    }
    fn globals(&self) -> Vec<(String, StateObjId)> {
        Vec::new()
    }
    fn object(&self, _: StateObjId) -> anyhow::Result<Option<StateObject>> {
        Ok(None)
    }
    fn pointer_slots(&self, _: StateObjId) -> anyhow::Result<Vec<PointerSlot>> {
        Ok(Vec::new())
    }
}

/// Every fixture, every summarised function, analysed past-sensitively from the state
/// that knows nothing (the eager reference projection, no reuse): a writeless function
/// writes and frees nothing; a function summarised as writing only its parameters'
/// objects writes only what they point to, the `unknown` object, and no global.
#[test]
fn summaries_agree_with_the_analysis_from_any_state() {
    let mut files = c_files("tests/fixtures");
    files.extend(c_files("tests/pspa"));
    assert!(files.len() >= 20, "the fixtures are missing");
    let (mut checked_writeless, mut checked_params, mut not_analysed) = (0, 0, 0);
    let mut session_checked = 0;
    for file in &files {
        let prog = Program::from_file(file, &Default::default()).unwrap();
        let sums = summaries(&prog, false);
        let options = SessionOptions {
            reuse: false,
            on_demand: false,
            ..Default::default()
        };
        let mut session = Session::open(file, &Default::default(), options).unwrap();
        for (f, func) in prog.functions.iter().enumerate() {
            let Ok(mask) = sums[f] else { continue };
            let top = TopState {
                prog: &prog,
                function: &func.name,
            };
            let at = file.display();
            let r = match session.analyze_state(&top, None, false) {
                Ok(r) => r,
                Err(e) => {
                    // A state without the globals the code reads cannot always be
                    // projected; counted, and bounded below.
                    eprintln!(
                        "{at}: `{}` not analysed from the top state: {e:#}",
                        func.name
                    );
                    not_analysed += 1;
                    continue;
                }
            };
            assert!(
                r.freeset.is_empty(),
                "{at}: `{}` frees {:?}",
                func.name,
                r.freeset
            );
            if mask == 0 {
                assert!(
                    r.modset.is_empty(),
                    "{at}: `{}` is writeless, yet writes {:?}",
                    func.name,
                    r.modset
                );
                checked_writeless += 1;
            } else {
                for m in &r.modset {
                    assert!(
                        m.starts_with(pspa::site::UNKNOWN),
                        "{at}: `{}` writes only its parameters' objects, yet writes {m}",
                        func.name
                    );
                }
                checked_params += 1;
            }
        }
        // The session checks each full analysis of a writeless function itself.
        let st = session.reuse_stats();
        assert_eq!(st.writeless_contradicted, 0);
        session_checked += st.writeless_checked;
    }
    assert_eq!(session_checked, checked_writeless as u64);
    eprintln!("{checked_writeless} writeless, {checked_params} parameter writers, {not_analysed} not analysed");
    // Not vacuous.
    assert!(
        checked_writeless >= 10,
        "{checked_writeless} writeless functions checked"
    );
    assert!(
        checked_params >= 5,
        "{checked_params} parameter writers checked"
    );
    assert!(
        not_analysed <= checked_writeless / 4,
        "{not_analysed} not analysed"
    );
}

/// The session answers a writeless function's call without a state, with the functions
/// it may run, and only when asked for mod/ref alone.
#[test]
fn session_answers_writeless_calls_without_a_state() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/writeless.c");
    let open = |o: SessionOptions| Session::open(&file, &Default::default(), o).unwrap();
    let on = SessionOptions {
        writeless: true,
        ..Default::default()
    };
    let mut s = open(on.clone());
    let f = |s: &Session, n: &str| s.prog.function_by_name(n).unwrap();
    let names = |s: &Session, v: Vec<u32>| -> Vec<String> {
        v.into_iter()
            .map(|g| s.prog.functions[g as usize].name.clone())
            .collect()
    };
    let call = CallOptions::default();
    let find_up = f(&s, "find_up");
    let ran = s.writeless_call(find_up, call).unwrap();
    assert_eq!(names(&s, ran), ["find_up"]);
    // lookup runs copy_name (and strcpy), hash_local (and strncpy), find_up.
    let lookup = f(&s, "lookup");
    let ran = s.writeless_call(lookup, call).unwrap();
    let mut ran = names(&s, ran);
    ran.sort();
    assert_eq!(
        ran,
        [
            "copy_name",
            "find_up",
            "hash_local",
            "lookup",
            "strcpy",
            "strncpy"
        ]
    );
    // A writer of its parameter's object is analysed.
    let set_value = f(&s, "set_value");
    assert!(s.writeless_call(set_value, call).is_none());
    let st = s.reuse_stats();
    assert_eq!((st.writeless, st.invocations, st.reuse_hits), (2, 2, 2));
    // Calls asking more (points-to sets, the eager reference) and sessions without
    // reuse or without the option are analysed.
    let pt = CallOptions {
        points_to: true,
        ..Default::default()
    };
    assert!(s.writeless_call(find_up, pt).is_none());
    let eager = CallOptions {
        eager: true,
        ..Default::default()
    };
    assert!(s.writeless_call(find_up, eager).is_none());
    for o in [
        SessionOptions::default(),
        SessionOptions {
            reuse: false,
            ..on.clone()
        },
        SessionOptions {
            points_to: true,
            ..on.clone()
        },
    ] {
        assert!(open(o).writeless_call(find_up, call).is_none());
    }
}
