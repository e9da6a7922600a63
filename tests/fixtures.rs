//! C fixtures with expected facts written in the fixture itself, checked against
//! `pspa analyze`, and (for fixtures that ask for it) a soundness check against a native run
//! under the observation harness (tests/harness/observe.h).
//!
//! Expectation lines in a fixture (`//! ` prefix; labels as `pspa analyze` prints them):
//!   pts F::v = L...      exact points-to set of a pointer variable (`::g` for globals)
//!   mem LABEL = L...     exact points-to set of an abstract field
//!   mod F = L...         exact mod set; also `ref`, `free` (may-free)
//!   mod F >= L...        superset;  `mod F !> L...`: contains none of these
//!   stat KEY = N         a statistic of the report
//!   allocator NAME       analyse with --allocator NAME
//!   observe N            run natively and check every observed fact; expect >= N facts

use pspa::analysis::{self, Analysis};
use pspa::facts::Program;
use pspa::frontend::FrontOptions;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::observe;

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

struct Expect {
    line: usize,
    kind: String,
    subject: String,
    op: String,
    labels: Vec<String>,
}

fn parse(src: &str) -> (Vec<Expect>, Vec<String>, Option<usize>) {
    let (mut out, mut allocators, mut observe) = (Vec::new(), Vec::new(), None);
    for (i, line) in src.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("//! ") else {
            continue;
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        match words.as_slice() {
            ["allocator", n] => allocators.push(n.to_string()),
            ["observe", n] => observe = Some(n.parse().unwrap()),
            [kind, subject, op, labels @ ..] => out.push(Expect {
                line: i + 1,
                kind: kind.to_string(),
                subject: subject.to_string(),
                op: op.to_string(),
                labels: labels.iter().map(|s| s.to_string()).collect(),
            }),
            _ => panic!("line {}: bad expectation `{}`", i + 1, rest),
        }
    }
    (out, allocators, observe)
}

fn set_of(a: &Analysis, e: &Expect) -> Result<BTreeSet<String>, String> {
    let v = match e.kind.as_str() {
        "pts" => a
            .pointers()
            .get(&e.subject)
            .cloned()
            .ok_or(format!("no pointer variable {}", e.subject))?,
        "mem" => a.memory().get(&e.subject).cloned().unwrap_or_default(),
        "mod" | "ref" | "free" => {
            let f = a
                .function(&e.subject)
                .ok_or(format!("no function {}", e.subject))?;
            match e.kind.as_str() {
                "mod" => a.mod_of(f),
                "ref" => a.ref_of(f),
                _ => a.free_of(f),
            }
        }
        k => return Err(format!("unknown expectation kind {}", k)),
    };
    Ok(v.into_iter().collect())
}

fn check(a: &Analysis, e: &Expect) -> Result<(), String> {
    if e.kind == "stat" {
        let stats = a.stats();
        let got = e.subject.split('.').fold(&stats, |v, k| &v[k]);
        let want: serde_json::Value = serde_json::from_str(&e.labels.join(" ")).unwrap();
        return if *got == want {
            Ok(())
        } else {
            Err(format!("stat {} is {}, expected {}", e.subject, got, want))
        };
    }
    let got = set_of(a, e)?;
    let want: BTreeSet<String> = e.labels.iter().cloned().collect();
    let ok = match e.op.as_str() {
        "=" => got == want,
        ">=" => want.is_subset(&got),
        "!>" => want.is_disjoint(&got),
        op => return Err(format!("unknown operator {}", op)),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{} {} {} {:?}: got {:?}",
            e.kind, e.subject, e.op, want, got
        ))
    }
}

fn check_observed(a: &Analysis, fact: &str) -> Result<(), String> {
    let w: Vec<&str> = fact.split_whitespace().collect();
    let locs = |label: &str, off: &str| -> Result<Vec<String>, String> {
        let v = common::site_locs(a, label, off.parse().unwrap());
        if v.is_empty() {
            Err(format!("observed object {} unknown to the analysis", label))
        } else {
            Ok(v)
        }
    };
    let memory = a.memory();
    match w.as_slice() {
        ["edge", h, hoff, t, toff] => {
            let (holders, targets) = (locs(h, hoff)?, locs(t, toff)?);
            let ok = holders.iter().any(|h| {
                memory
                    .get(h)
                    .is_some_and(|p| targets.iter().any(|t| p.contains(t)))
            });
            if ok {
                Ok(())
            } else {
                Err(format!(
                    "{:?} may point to {:?} (observed), analysis says {:?}",
                    holders,
                    targets,
                    memory.get(&holders[0])
                ))
            }
        }
        ["var", v, t, toff] => {
            let targets = locs(t, toff)?;
            let pts = a
                .pointers()
                .get(*v)
                .cloned()
                .ok_or(format!("no pointer variable {}", v))?;
            if targets.iter().any(|t| pts.contains(t)) {
                Ok(())
            } else {
                Err(format!(
                    "{} may point to {:?} (observed), analysis says {:?}",
                    v, targets, pts
                ))
            }
        }
        ["mod", f, o, off] => {
            let ls = locs(o, off)?;
            let fid = a.function(f).ok_or(format!("no function {}", f))?;
            let m = a.mod_of(fid);
            if ls.iter().any(|l| m.contains(l)) {
                Ok(())
            } else {
                Err(format!(
                    "{} wrote {:?} (observed), not in its mod set",
                    f, ls
                ))
            }
        }
        _ => Err(format!("bad observation line `{}`", fact)),
    }
}

fn run_fixture(name: &str) {
    let path = fixture_path(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let (expects, allocators, obs) = parse(&src);
    let prog = Program::from_file(
        &path,
        &FrontOptions {
            allocators,
            ..Default::default()
        },
    )
    .unwrap();
    let a = analysis::analyze(&prog);
    let mut errors: Vec<String> = expects
        .iter()
        .filter_map(|e| {
            check(&a, e)
                .err()
                .map(|m| format!("{}:{}: {}", name, e.line, m))
        })
        .collect();
    if let Some(min) = obs {
        let facts = observe(&path);
        let distinct: BTreeSet<&String> = facts.iter().collect();
        if distinct.len() < min {
            errors.push(format!(
                "{}: observed only {} facts, expected at least {}",
                name,
                distinct.len(),
                min
            ));
        }
        for f in distinct {
            if let Err(m) = check_observed(&a, f) {
                errors.push(format!("{}: unsound: {}", name, m));
            }
        }
    }
    assert!(
        !expects.is_empty() || obs.is_some(),
        "fixture {} checks nothing",
        name
    );
    assert!(errors.is_empty(), "\n{}", errors.join("\n"));
    check_report_labels(&a);
}

/// Reports label sets through an index sorted once; it must give what formatting each
/// element with `label()` and sorting the strings gives, and the streamed report must be the
/// built one.
fn check_report_labels(a: &analysis::Analysis) {
    for (f, func) in a.prog().functions.iter().enumerate() {
        if !func.defined {
            continue;
        }
        let set = &a.modref.modset[f];
        let mut want: Vec<String> = set.iter().map(|l| a.label(l)).collect();
        want.sort();
        want.dedup();
        assert_eq!(a.mod_of(f as u32), want, "mod of {}", func.name);
    }
    let built = serde_json::to_value(a.report(&[], true)).unwrap();
    let streamed = serde_json::to_value(a.report_lazy(&[], true)).unwrap();
    assert_eq!(built, streamed);
}

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => {
        $( #[test] fn $name() { run_fixture(concat!(stringify!($name), ".c")); } )*
    };
}

fixtures!(
    fig1,
    fields,
    heap,
    funcptr,
    varargs,
    memops,
    casts,
    libc,
    unknown,
    globals,
    recursion,
    typeconf,
    signature,
    initializers,
    libbody,
    klee,
    inittables,
    free,
    hooks,
    symbolic,
    writeless
);

#[test]
fn every_fixture_is_listed() {
    let listed = [
        "fig1",
        "fields",
        "heap",
        "funcptr",
        "varargs",
        "memops",
        "casts",
        "libc",
        "unknown",
        "globals",
        "recursion",
        "typeconf",
        "signature",
        "initializers",
        "libbody",
        "klee",
        "inittables",
        "free",
        "hooks",
        "symbolic",
        "writeless",
    ];
    for e in std::fs::read_dir(fixture_path("")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "c") {
            let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
            assert!(
                listed.contains(&stem.as_str()),
                "fixture {} is not run",
                stem
            );
        }
    }
}
