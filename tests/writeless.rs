//! Write summaries (src/writeless.rs): by hand on tests/fixtures/writeless.c, and against
//! the whole-program analysis on every C fixture (an independent oracle: what the
//! summaries claim without points-to sets, its sets must agree with).

use pspa::facts::Program;
use pspa::session::{CallOptions, Session, SessionOptions};
use pspa::state::{PointerSlot, StateObjId, StateObject, SymbolicState, Target};
use pspa::writeless::{state_free_writes, summaries, writeless, Summary, Why};
use std::path::Path;

mod common;
use common::c_files;

fn fixture(name: &str) -> Program {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    Program::from_file(&p, &Default::default()).unwrap()
}

/// A function's summary as (parameters written, parameters written with pointers, the
/// labels of the statics written).
type Brief = Result<(u64, u64, Vec<String>), Why>;

fn summary_of(prog: &Program, sums: &[Result<Summary, Why>], name: &str) -> Brief {
    let f = prog
        .function_by_name(name)
        .unwrap_or_else(|| panic!("no {name}"));
    sums[f as usize].as_ref().map_err(|w| *w).map(|s| {
        let labels = s
            .statics
            .iter()
            .map(|&o| prog.objects[o as usize].label.to_string())
            .collect();
        (s.params, s.pointer_params, labels)
    })
}

fn params(mask: u64) -> Brief {
    Ok((mask, 0, Vec::new()))
}

#[test]
fn summaries_by_hand() {
    let prog = fixture("tests/fixtures/writeless.c");
    let sums = summaries(&prog, false);
    let s = |n| summary_of(&prog, &sums, n);
    // Loads only; its stores go to its own slots (`p`, the parameter's copy).
    assert_eq!(s("find_up"), params(0));
    // strncpy's model writes its first argument, the local `buf`.
    assert_eq!(s("hash_local"), params(0));
    // strcpy writes what `dst` points to: the caller's object, parameter 0 (bytes only:
    // the pointer analysis copies no pointer through a string).
    assert_eq!(s("copy_name").map(|b| b.0), Ok(1));
    // copy_name writes its own `key`; the other callees write nothing.
    assert_eq!(s("lookup"), params(0));
    assert_eq!(s("set_value"), params(1));
    // `q`'s slot holds only the parameter: a write through it is a write of parameter 0.
    assert_eq!(s("set_via_local"), params(1));
    // `n->left = m`: parameter 0's object now holds a pointer.
    assert_eq!(s("link_left"), Ok((1, 1, Vec::new())));
    // A pointer loaded through the parameter may point anywhere.
    assert_eq!(s("set_left_value"), Err(Why::WritesElsewhere));
    // `counter++`: a global by its address, an integer stored.
    let counter = || Ok((0, 0, vec!["global:counter".to_string()]));
    assert_eq!(s("bump"), counter());
    // clear writes its parameter's object, here `&counter`.
    assert_eq!(s("clear"), params(1));
    assert_eq!(s("reset_counter"), counter());
    // errno through the library's storage: `*__errno_location() = 0` twice, each call
    // its own storage object (`heap:parse_digit:LINE`, as a model's allocation).
    let errno = s("parse_digit").expect("parse_digit writes errno only");
    assert_eq!((errno.0, errno.1, errno.2.len()), (0, 0, 2), "{errno:?}");
    assert!(errno.2.iter().all(|l| l.starts_with("heap:parse_digit:")));
    // Its callees' statics, and its own `local`.
    let both = s("count_and_parse").expect("count_and_parse writes statics only");
    assert_eq!(both.2.len(), 3, "{both:?}");
    assert!(both.2.contains(&"global:counter".to_string()), "{both:?}");
    // A pointer stored into a global: not summarised; nor a library call's write of one.
    assert_eq!(s("set_root_ptr"), Err(Why::WritesElsewhere));
    assert_eq!(s("fill_name"), Err(Why::WritesElsewhere));
    // set_value applied to `root`, loaded from a global.
    assert_eq!(s("set_root"), Err(Why::WritesElsewhere));
    // set_value applied to its own `tmp`.
    assert_eq!(s("local_node"), params(0));
    assert_eq!(s("drop"), Err(Why::Calls));
    assert_eq!(s("apply"), Err(Why::Calls));
    assert_eq!(s("depth"), Err(Why::Recursive));
    // It calls `depth`, which is never summarised (a cycle), so neither is main.
    assert_eq!(s("main"), Err(Why::Recursive));
    let names = |w: Vec<bool>| {
        let mut names: Vec<&str> = prog
            .functions
            .iter()
            .zip(w)
            .filter(|(_, w)| *w)
            .map(|(f, _)| f.name.as_str())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(writeless(&prog, false)),
        ["find_up", "hash_local", "local_node", "lookup"]
    );
    let state_free = state_free_writes(&prog, false)
        .into_iter()
        .map(|s| s.is_some_and(|s| !s.is_empty()))
        .collect();
    assert_eq!(
        names(state_free),
        ["bump", "count_and_parse", "parse_digit", "reset_counter"]
    );
}

/// A call of `function` in a state that knows nothing: every pointer argument, and every
/// pointer-sized cell of every global, may point anywhere (`Target::Unknown`, which the
/// abstraction makes a self-pointing `unknown` object). The most any state can be, so
/// whatever a summary claims for every state must hold here: a pointer loaded from a
/// global is not the global's initial one.
struct TopState<'p> {
    prog: &'p Program,
    function: &'p str,
}

impl TopState<'_> {
    /// A global by its state id (its object's id + 1).
    fn global_object(&self, id: StateObjId) -> Option<&pspa::facts::Object> {
        let o = self.prog.objects.get(id.checked_sub(1)? as usize)?;
        (o.kind == pspa::facts::ObjKind::Global && !o.readonly).then_some(o)
    }

    fn size(&self, o: &pspa::facts::Object) -> u64 {
        o.layout
            .map_or(8, |l| self.prog.layouts[l as usize].size())
            .max(8)
    }
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
        (1..=self.prog.objects.len() as u64)
            .filter_map(|id| {
                let o = self.global_object(id)?;
                Some((pspa::site::global_name(&o.label)?.to_string(), id))
            })
            .collect()
    }
    fn object(&self, id: StateObjId) -> anyhow::Result<Option<StateObject>> {
        Ok(self.global_object(id).map(|o| StateObject {
            id,
            site: o.label.clone(),
            size: self.size(o),
            ty: None,
        }))
    }
    fn pointer_slots(&self, id: StateObjId) -> anyhow::Result<Vec<PointerSlot>> {
        let Some(o) = self.global_object(id) else {
            return Ok(Vec::new());
        };
        Ok((0..self.size(o) / 8)
            .map(|i| PointerSlot {
                offset: i * 8,
                targets: [Target::Unknown].into_iter().collect(),
            })
            .collect())
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
    let (mut checked_writeless, mut checked_statics, mut checked_params, mut not_analysed) =
        (0, 0, 0, 0);
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
            let Ok(sum) = &sums[f] else { continue };
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
            // A static written is its site's object: a global of the state (`SITE@ID`),
            // a model's storage (a static site).
            let statics: Vec<&str> = sum
                .statics
                .iter()
                .map(|&o| prog.objects[o as usize].label.as_ref())
                .collect();
            let is_static =
                |m: &str| pspa::site::Label::parse(m).is_some_and(|l| statics.contains(&l.site));
            if sum.is_writeless() {
                assert!(
                    r.modset.is_empty(),
                    "{at}: `{}` is writeless, yet writes {:?}",
                    func.name,
                    r.modset
                );
                checked_writeless += 1;
            } else if sum.state_free() {
                for m in &r.modset {
                    assert!(
                        is_static(m),
                        "{at}: `{}` writes only {statics:?}, yet writes {m}",
                        func.name
                    );
                }
                // Not coarser than needed: each static it names, the analysis writes.
                for st in &statics {
                    assert!(
                        r.modset
                            .iter()
                            .any(|m| pspa::site::Label::parse(m).is_some_and(|l| l.site == *st)),
                        "{at}: `{}` is said to write {st}, which its analysis does not",
                        func.name
                    );
                }
                checked_statics += 1;
            } else {
                for m in &r.modset {
                    assert!(
                        m.starts_with(pspa::site::UNKNOWN) || is_static(m),
                        "{at}: `{}` writes only its parameters' objects and {statics:?}, yet writes {m}",
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
    // It checks statics writers too (their answers are given without a state as well).
    assert_eq!(
        session_checked,
        (checked_writeless + checked_statics) as u64
    );
    eprintln!("{checked_writeless} writeless, {checked_statics} static writers, {checked_params} parameter writers, {not_analysed} not analysed");
    // Not vacuous.
    assert!(
        checked_writeless >= 10,
        "{checked_writeless} writeless functions checked"
    );
    assert!(
        checked_statics >= 4,
        "{checked_statics} static writers checked"
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
    assert!(ran.statics.is_empty());
    assert_eq!(names(&s, ran.calls), ["find_up"]);
    // lookup runs copy_name (and strcpy), hash_local (and strncpy), find_up.
    let lookup = f(&s, "lookup");
    let ran = s.writeless_call(lookup, call).unwrap();
    let mut ran = names(&s, ran.calls);
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
    // A writer of a global is answered with it (count_and_parse's callees: errno's
    // storage at two calls and `counter`).
    let counting = f(&s, "count_and_parse");
    let ran = s.writeless_call(counting, call).unwrap();
    let labels: Vec<&str> = ran
        .statics
        .iter()
        .map(|&o| s.prog.objects[o as usize].label.as_ref())
        .collect();
    assert_eq!(labels.len(), 3, "{labels:?}");
    assert!(labels.contains(&"global:counter"), "{labels:?}");
    // A writer of its parameter's object is analysed.
    let set_value = f(&s, "set_value");
    assert!(s.writeless_call(set_value, call).is_none());
    let st = s.reuse_stats();
    assert_eq!(
        (
            st.writeless,
            st.writeless_statics,
            st.invocations,
            st.reuse_hits
        ),
        (3, 1, 3, 3)
    );
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

/// A state-free answer in terms of live objects: a global of the summary's statics may be
/// written wherever it is (it is one object in every state), an object of the state that
/// is not a static is not, KLEE's own objects (errno, of no site of the program) may be
/// when the call writes a model's storage, and nothing is freed.
#[test]
fn state_free_answers_name_their_statics_in_any_state() {
    use pspa::query::{Answer, LiveObject};
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/writeless.c");
    let options = SessionOptions {
        writeless: true,
        ..Default::default()
    };
    let mut s = Session::open(&file, &Default::default(), options).unwrap();
    let p = &s.prog.clone();
    let live = |label: &str, id: u64| LiveObject {
        id,
        site: Some(p.object_by_label(label).unwrap()),
        existed: true,
    };
    let counter = live("global:counter", 7);
    let root = live("global:root", 8);
    let node = live("heap:main:89", 9);
    let klee_errno = LiveObject {
        id: 10,
        site: None,
        existed: true,
    };
    let call = CallOptions::default();
    // bump writes `counter` only.
    let w = s
        .writeless_call(p.function_by_name("bump").unwrap(), call)
        .unwrap();
    let a = Answer::writeless(w.calls, &w.statics, false);
    assert!(a.may_write(p, &counter, Some((0, 4))));
    assert!(!a.may_write(p, &root, None));
    assert!(!a.may_write(p, &node, None));
    assert!(!a.may_write(p, &klee_errno, None));
    assert!(!a.may_free(p, &counter));
    // It may read anything: its ref-set is not computed.
    assert!(a.may_read(p, &root, None));
    // parse_digit writes errno's storage: KLEE's errno object, whatever the state.
    let w = s
        .writeless_call(p.function_by_name("parse_digit").unwrap(), call)
        .unwrap();
    let a = Answer::writeless(w.calls, &w.statics, false);
    assert!(a.may_write(p, &klee_errno, None));
    assert!(!a.may_write(p, &counter, None));
    assert!(!a.may_write(p, &node, None));
    // A writeless one writes nothing.
    let w = s
        .writeless_call(p.function_by_name("lookup").unwrap(), call)
        .unwrap();
    let a = Answer::writeless(w.calls, &w.statics, false);
    for o in [&counter, &root, &node] {
        assert!(!a.may_write(p, o, None));
    }
}
