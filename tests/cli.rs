//! The `pspa` binary as a user runs it: JSON shape, filters, and bad input.

use std::path::Path;
use std::process::{Command, Output};

fn pspa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pspa"))
        .args(args)
        .output()
        .expect("pspa runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn assert_clean_error(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "exit code 2 expected, stderr: {}",
        err
    );
    assert!(!err.contains("panicked"), "panic: {}", err);
    for n in needles {
        assert!(err.contains(n), "`{}` not in error: {}", n, err);
    }
}

#[test]
fn json_has_the_documented_shape() {
    let out = pspa(&["analyze", &fixture("fig1.c"), "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "pspa.analysis/1");
    assert!(v["module"].as_str().unwrap().ends_with("fig1.c"));
    // table_insert's mod set as in the fixture's reasoning.
    let m: Vec<&str> = v["functions"]["table_insert"]["mod"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(m.contains(&"heap:table_insert:33.*") && m.contains(&"heap:table_alloc:14.0"));
    assert_eq!(
        v["pointers"]["main::e"],
        serde_json::json!(["heap:table_insert:32.0"])
    );
    assert!(v["stats"]["constraints"].as_u64().unwrap() > 0);
}

#[test]
fn function_filter_restricts_the_report() {
    let out = pspa(&[
        "analyze",
        &fixture("fig1.c"),
        "--json",
        "--function",
        "table_lookup",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fns: Vec<&String> = v["functions"].as_object().unwrap().keys().collect();
    assert_eq!(fns, vec!["table_lookup"]);
    assert!(v["pointers"]
        .as_object()
        .unwrap()
        .keys()
        .all(|k| k.starts_with("table_lookup::")));
}

#[test]
fn textual_ir_and_bitcode_give_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("fig1.bc");
    let ll = dir.path().join("fig1.ll");
    pspa::frontend::compile_c(Path::new(&fixture("fig1.c")), &bc).unwrap();
    let dis = Command::new("llvm-dis-14")
        .arg(&bc)
        .arg("-o")
        .arg(&ll)
        .status();
    let a = pspa(&[
        "analyze",
        bc.to_str().unwrap(),
        "--json",
        "--function",
        "table_insert",
    ]);
    let va: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(
        va["functions"]["table_insert"]["mod"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    if dis.is_ok_and(|s| s.success()) {
        let b = pspa(&[
            "analyze",
            ll.to_str().unwrap(),
            "--json",
            "--function",
            "table_insert",
        ]);
        let vb: serde_json::Value = serde_json::from_slice(&b.stdout).unwrap();
        assert_eq!(va["functions"], vb["functions"]);
    }
}

#[test]
fn missing_file() {
    assert_clean_error(
        &pspa(&["analyze", "/nonexistent/x.bc"]),
        &["/nonexistent/x.bc", "cannot read"],
    );
}

#[test]
fn truncated_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("fig1.bc");
    pspa::frontend::compile_c(Path::new(&fixture("fig1.c")), &bc).unwrap();
    let bytes = std::fs::read(&bc).unwrap();
    let cut = dir.path().join("cut.bc");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_clean_error(
        &pspa(&["analyze", cut.to_str().unwrap()]),
        &["cut.bc", "malformed bitcode"],
    );
}

#[test]
fn text_file_is_not_ir() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("notes.txt");
    std::fs::write(&t, "this is not LLVM IR\n").unwrap();
    assert_clean_error(
        &pspa(&["analyze", t.to_str().unwrap()]),
        &["notes.txt", "malformed LLVM IR"],
    );
    let bin = dir.path().join("blob.bc");
    std::fs::write(&bin, [0u8, 159, 146, 150, 1, 2, 3]).unwrap();
    assert_clean_error(
        &pspa(&["analyze", bin.to_str().unwrap()]),
        &["blob.bc", "not LLVM bitcode"],
    );
}

#[test]
fn broken_c_and_unknown_function() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("bad.c");
    std::fs::write(&c, "int main( { return 0; }\n").unwrap();
    assert_clean_error(
        &pspa(&["analyze", c.to_str().unwrap()]),
        &["bad.c", "clang-14 failed"],
    );
    assert_clean_error(
        &pspa(&["analyze", &fixture("fig1.c"), "--function", "nope"]),
        &["unknown function `nope`"],
    );
}

#[test]
fn missing_clang_is_reported() {
    let out = Command::new(env!("CARGO_BIN_EXE_pspa"))
        .args(["analyze", &fixture("fig1.c")])
        .env("PSPA_CLANG", "clang-does-not-exist")
        .output()
        .unwrap();
    assert_clean_error(
        &out,
        &[
            "clang-does-not-exist",
            "not found",
            "apt-get install clang-14",
        ],
    );
}

#[test]
fn compare_counts_facts_on_each_side() {
    // Two hand-written documents. A: p -> {X.*, g.0}, f mod {g.0}. B: p -> {X.1, h.0}, f mod
    // {g.0, k.0}, plus a variable A lacks. X.* covers X.1 (a field-insensitive object makes
    // no claim about fields), so B's only facts are p -> h.0 and f mod k.0; A's only fact is
    // p -> g.0.
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    std::fs::write(&a, r#"{"schema":"pspa.analysis/1","module":"m","functions":{"f":{"mod":["global:g.0"],"ref":[]}},"pointers":{"f::p":["heap:f:3.*","global:g.0"]},"stats":{}}"#).unwrap();
    std::fs::write(&b, r#"{"schema":"pspa.analysis/1","module":"m","functions":{"f":{"mod":["global:g.0","global:k.0"],"ref":[]}},"pointers":{"f::p":["heap:f:3.1","global:h.0"],"f::q":[]},"stats":{}}"#).unwrap();
    let out = pspa(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--json",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pointers"]["common"], 1);
    assert_eq!(v["pointers"]["keys_only_b"], 1);
    assert_eq!(v["pointers"]["facts_only_a"], 1);
    assert_eq!(v["pointers"]["facts_only_b"], 1);
    assert_eq!(v["mod"]["facts_only_b"], 1);
    assert_eq!(v["mod"]["facts_only_a"], 0);
    assert_eq!(
        v["pointers"]["worst_b"][0][2],
        serde_json::json!(["global:h.0"])
    );
    // B has facts A lacks: --require-subset fails with 1; the other way round A's extra
    // p -> g.0 is a fact B lacks too, so it fails as well; a document against itself passes.
    assert_eq!(
        pspa(&[
            "compare",
            a.to_str().unwrap(),
            b.to_str().unwrap(),
            "--require-subset"
        ])
        .status
        .code(),
        Some(1)
    );
    assert_eq!(
        pspa(&[
            "compare",
            b.to_str().unwrap(),
            a.to_str().unwrap(),
            "--require-subset"
        ])
        .status
        .code(),
        Some(1)
    );
    assert_eq!(
        pspa(&[
            "compare",
            a.to_str().unwrap(),
            a.to_str().unwrap(),
            "--require-subset"
        ])
        .status
        .code(),
        Some(0)
    );
    // At object granularity heap:f:3 is on both sides.
    let o = pspa(&[
        "compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--json",
        "--objects",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["pointers"]["facts_only_b"], 1);
    // A document of another schema is refused, naming the file.
    std::fs::write(&b, r#"{"schema":"pspa.modref/1"}"#).unwrap();
    assert_clean_error(
        &pspa(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]),
        &["b.json", "pspa.analysis/1"],
    );
}

#[test]
fn text_mode_says_what_json_says() {
    // The text report is written set by set from the same analysis as the JSON one: each
    // function's mod and ref lines and each pointer line must list exactly the JSON's labels.
    let j = pspa(&["analyze", &fixture("fig1.c"), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&j.stdout).unwrap();
    let t = pspa(&["analyze", &fixture("fig1.c"), "--pointers"]);
    assert!(t.status.success());
    let text = String::from_utf8(t.stdout).unwrap();
    let line_after = |head: &str, prefix: &str| -> Vec<String> {
        let mut lines = text.lines().skip_while(|l| *l != head).skip(1);
        let l = lines
            .find(|l| l.trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no {prefix} after {head}"));
        l.split_once(": ")
            .map(|(_, r)| r.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default()
    };
    let json_list = |x: &serde_json::Value| -> Vec<String> {
        x.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    for f in ["table_insert", "table_lookup", "main"] {
        assert_eq!(
            line_after(f, "mod ("),
            json_list(&v["functions"][f]["mod"]),
            "{f} mod"
        );
        assert_eq!(
            line_after(f, "ref ("),
            json_list(&v["functions"][f]["ref"]),
            "{f} ref"
        );
    }
    let e_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("main::e ->"))
        .expect("main::e listed");
    let e: Vec<String> = e_line
        .split(" -> ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .map(str::to_string)
        .collect();
    assert_eq!(e, json_list(&v["pointers"]["main::e"]));
}

#[test]
fn svf_blind_spots_drop_exactly_what_svf_misses() {
    // initializers.c: `table` (3 pointers) and `ctable` (2) are array initialisers, st.x is
    // at offset 0 of a struct initialiser: 6 pointers dropped, so q0, qi, k and sx point
    // nowhere. st.y (offset 8) stays: sy is not in the fixture, but mem st.1 keeps &c.
    let run = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["analyze", "--json"];
        args.extend_from_slice(extra);
        let f = fixture("initializers.c");
        args.push(&f);
        let out = pspa(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let blind = run(&["--svf-blind-spots"]);
    for v in ["main::q0", "main::qi", "main::k", "main::sx"] {
        assert_eq!(blind["pointers"][v], serde_json::json!([]), "{v}");
    }
    assert_eq!(
        blind["memory"]["global:st.1"],
        serde_json::json!(["global:c.0"])
    );
    assert_eq!(
        blind["stats"]["svf_blind_spots"],
        serde_json::json!({"array initialiser": 5, "struct initialiser at offset 0": 1})
    );
    // Off by default: the sound answer, and nothing dropped.
    let sound = run(&[]);
    assert_eq!(
        sound["pointers"]["main::sx"],
        serde_json::json!(["global:b.0"])
    );
    assert_eq!(sound["stats"]["svf_blind_spots"], serde_json::json!({}));
    // varargs.c: va_start gives the va_list nothing, so first's result is empty.
    let out = pspa(&[
        "analyze",
        "--json",
        "--svf-blind-spots",
        &fixture("varargs.c"),
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pointers"]["main::f"], serde_json::json!([]));
    assert_eq!(v["stats"]["svf_blind_spots"]["va_start"], 2);
}

#[test]
fn a_call_over_its_work_budget_is_an_error_naming_the_snapshot() {
    // Inserting into Figure 1's table propagates many points-to elements: a budget of one
    // element stops it, and the call gets no (unsound, partial) answer. A budget far above
    // the solve's work gives the unbounded answer.
    let snap = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/snapshots/fig1-insert.json")
        .display()
        .to_string();
    let out = pspa(&["modref", "--max-work", "1", "--snapshot", &snap]);
    assert_clean_error(&out, &["fig1-insert.json", "table_insert", "work budget"]);
    let sets = |out: Output| {
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v["mod"].clone(), v["ref"].clone())
    };
    let bounded = sets(pspa(&[
        "modref",
        "--json",
        "--max-work",
        "1000000000",
        "--snapshot",
        &snap,
    ]));
    let free = sets(pspa(&["modref", "--json", "--snapshot", &snap]));
    assert!(bounded.0.as_array().is_some_and(|m| !m.is_empty()));
    assert_eq!(bounded, free);
}

/// `pspa wit`: the JSON document has the documented keys (docs/wit.md), every write's
/// colour is one of the objects' colours, and bad input is a clean error naming the file.
#[test]
fn wit_tables_and_errors() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/wit/buffers.c")
        .display()
        .to_string();
    let out = pspa(&["wit", &src, "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["schema"], "pspa.wit/1");
    let colours: std::collections::BTreeSet<u64> = v["objects"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!(colours.len() as u64, v["colours"].as_u64().unwrap());
    for s in v["stores"].as_array().unwrap() {
        assert!(colours.contains(&s["colour"].as_u64().unwrap()), "{s}");
        // Without debug information (clang's argument spills), no position.
        let f = s["file"].as_str().unwrap();
        assert!(
            f.ends_with("buffers.c") || (f.is_empty() && s["line"] == 0),
            "{s}"
        );
    }
    assert_clean_error(
        &pspa(&["wit", "--snapshot", "/nonexistent/s.json"]),
        &["/nonexistent/s.json"],
    );
    assert_clean_error(
        &pspa(&["wit", &fixture("nonexistent.c")]),
        &["nonexistent.c"],
    );
}

/// issue 25: a bitcode file cut anywhere is a clean error, never an abort. LLVM 14 skips
/// the module block by its length but enters the string and symbol tables, and a cut
/// inside those aborts the process (`LLVM ERROR: Invalid abbrev number`, as llvm-dis-14
/// does); the loader checks the top-level blocks first (src/bitcode.rs). Every cut tried
/// must exit 2 with one line naming the file (a cut between whole blocks reaches LLVM, whose
/// error is clean there); a cut inside the symbol table names it. The whole file analyses.
#[test]
fn bitcode_cut_anywhere_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("fig1.bc");
    pspa::frontend::compile_c(Path::new(&fixture("fig1.c")), &bc).unwrap();
    let bytes = std::fs::read(&bc).unwrap();
    let n = bytes.len();
    let blocks = pspa::bitcode::top_level_blocks(&bytes).unwrap();
    let symtab = blocks
        .iter()
        .find(|b| b.id == pspa::bitcode::SYMTAB_BLOCK)
        .expect("clang-14 writes a symbol table");
    // Inside each block's header and body; every word of the last 768 bytes (the symbol
    // and string tables, and the module block's end); a stride over the rest, off words.
    let mut cuts: Vec<usize> = blocks
        .iter()
        .flat_map(|b| {
            [
                b.header + 4,
                b.body.start + 4,
                (b.body.start + b.body.end) / 2,
            ]
        })
        .chain((n.saturating_sub(768)..n).step_by(4))
        .chain((1..n).step_by(97))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let cut = dir.path().join("cut.bc");
    for &len in &cuts {
        std::fs::write(&cut, &bytes[..len]).unwrap();
        let out = pspa(&["analyze", cut.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "cut at {len} of {n}: {err}");
        assert!(
            err.starts_with("pspa: error: ") && err.contains("cut.bc") && err.lines().count() == 1,
            "cut at {len} of {n}: {err}"
        );
        assert!(
            !err.contains("LLVM ERROR") && !err.contains("panicked"),
            "{err}"
        );
        if symtab.body.contains(&len) {
            assert!(
                err.contains("symbol table block (SYMTAB)"),
                "cut at {len}: {err}"
            );
        }
    }
    // The cuts inside the symbol table were among them; the whole file still analyses.
    assert!(cuts.iter().any(|c| symtab.body.contains(c)));
    let out = pspa(&["analyze", bc.to_str().unwrap()]);
    assert!(out.status.success());
}

/// issue 25: LLVM reads an empty buffer as the textual IR of an empty module, so an empty
/// file was analysed as a program with nothing in it. It is a mistake (a failed build, a
/// wrong path), not a module.
#[test]
fn empty_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["empty.bc", "empty.ll"] {
        let f = dir.path().join(name);
        std::fs::write(&f, b"").unwrap();
        assert_clean_error(
            &pspa(&["analyze", f.to_str().unwrap()]),
            &[name, "empty file, not LLVM bitcode"],
        );
    }
}

/// issue 25: the plugin's `--pspa-max-work=0` means "no bound" (README, plugin.cpp); the
/// CLI's `--max-work 0` is the same option, so it must mean the same, not a budget of
/// nothing (which failed every call). Inserting into Figure 1's table needs work: with 0
/// it must succeed and give exactly the unbounded sets.
#[test]
fn max_work_zero_means_no_bound() {
    let snap = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples/snapshots/fig1-insert.json")
        .display()
        .to_string();
    let sets = |extra: &[&str]| {
        let mut args = vec!["modref", "--json", "--snapshot", &snap];
        args.extend_from_slice(extra);
        let out = pspa(&args);
        assert!(
            out.status.success(),
            "{extra:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (v["mod"].clone(), v["ref"].clone(), v["free"].clone())
    };
    let zero = sets(&["--max-work", "0"]);
    assert!(zero.0.as_array().is_some_and(|m| m.len() > 1));
    assert_eq!(zero, sets(&[]));
    // The help says so.
    let help = String::from_utf8(pspa(&["modref", "--help"]).stdout).unwrap();
    assert!(help.contains("0 means no bound"), "{help}");
}

/// issue 25: `--allocator NAME` for a name the module has no function of does nothing, so
/// a misspelt name silently gives the unknown-function policy's answer: a warning names
/// the option and the name, once however often it is given. A name the module has (a
/// defined function, or libc's malloc) gives no warning.
#[test]
fn unknown_allocator_warns_once() {
    let out = pspa(&[
        "analyze",
        &fixture("fig1.c"),
        "--allocator",
        "nosuch",
        "--allocator",
        "nosuch",
        "--allocator",
        "table_alloc",
        "--allocator",
        "malloc",
    ]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "{err}");
    assert!(
        warnings[0].starts_with("pspa: warning: --allocator nosuch:"),
        "{err}"
    );
    assert!(
        !err.contains("table_alloc") && !err.contains("malloc"),
        "{err}"
    );
}

/// issue 25: `compare --kind` takes a kind of object; any other word used to be accepted
/// and matched nothing (an empty listing that looks like agreement). Now clap refuses it
/// (exit 2) and lists the kinds.
#[test]
fn compare_kind_must_be_a_kind() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.json");
    std::fs::write(&a, r#"{"schema":"pspa.analysis/1","module":"m","functions":{"f":{"mod":["global:g.0"],"ref":[]}},"pointers":{"f::p":["heap:f:3.*"]},"stats":{}}"#).unwrap();
    let a = a.to_str().unwrap();
    let out = pspa(&["compare", a, a, "--kind", "bogus"]);
    assert_clean_error(&out, &["bogus", "--kind", "global, stack, heap, func, svf"]);
    let out = pspa(&["compare", a, a, "--kind", "heap", "--json"]);
    assert!(out.status.success());
}

/// `pspa skips`: a profile written as the plugin writes it is ranked (the forking function
/// nothing reads first, the one whose result is used never), as JSON too; a file that is
/// not a profile, or a row that does not parse, is an error naming the file and the line.
#[test]
fn skips_ranks_a_profile_and_names_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("chop-profile.csv");
    // parse: 10 calls, 40 forks, whose paths ran 900k instructions, followed 10 times and
    // never read: the gain is 10 * ((100k + 900k) / 10 - 2k) = 980k instructions.
    // get: its result is used at every call.
    std::fs::write(
        &good,
        "# pspa chop profile/1: instructions=1000000 wall_s=1\n\
         function,calls,result_used,instructions,forks,path_instructions,analysed,mod_locations,watched,read,read_after_mean,unread,analysis_s,excluded,callers\n\
         get,5,5,500,0,0,0,0,5,5,0,0,0,,main:5\n\
         parse,10,0,100000,40,900000,10,20,10,0,0,10,0,,main:10\n",
    )
    .unwrap();
    let out = pspa(&["skips", good.to_str().unwrap(), "--all"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--skip-functions=parse\n"), "{text}");
    assert!(text.contains("980000"), "{text}");
    assert!(
        text.contains("its result is used after 5 of 5 calls"),
        "{text}"
    );
    let out = pspa(&["skips", good.to_str().unwrap(), "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["function"], "parse");
    assert_eq!(v[0]["verdict"], "skip");
    assert_eq!(v[1]["verdict"], "never");

    let bad = dir.path().join("bad.csv");
    std::fs::write(&bad, "function,calls\nf,1\n").unwrap();
    let out = pspa(&["skips", bad.to_str().unwrap()]);
    assert_clean_error(&out, &["bad.csv", "line 1", "pspa chop profile"]);
    let text = std::fs::read_to_string(&good)
        .unwrap()
        .replace("parse,10,", "parse,ten,");
    std::fs::write(&bad, text).unwrap();
    let out = pspa(&["skips", bad.to_str().unwrap()]);
    assert_clean_error(&out, &["bad.csv", "line 4"]);
    let out = pspa(&["skips", good.to_str().unwrap(), "--max-read", "2"]);
    assert_clean_error(&out, &["--max-read"]);
}

/// `pspa writeless`: one line per function (tests/writeless.rs reasons each summary), a
/// count line, and a clean error for an unknown function.
#[test]
fn writeless_lists_summaries() {
    let f = fixture("writeless.c");
    let out = pspa(&[
        "writeless",
        &f,
        "--function",
        "find_up",
        "--function",
        "set_value",
        "--function",
        "bump",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "find_up: writeless");
    assert_eq!(lines[1], "set_value: writes parameter 0's objects");
    assert_eq!(lines[2], "bump: writes `global:counter`");
    // Writeless: find_up, hash_local, lookup, local_node. Statics only: bump,
    // reset_counter, parse_digit, count_and_parse. Parameters: copy_name, set_value,
    // set_via_local, clear, link_left. fill_name has none (a model writes a global).
    assert!(
        lines[3].starts_with(
            "# 4 writeless, 4 writing only static objects, 5 writing their parameters' objects,"
        ),
        "{text}"
    );
    let out = pspa(&["writeless", &f, "--function", "nosuch"]);
    assert_clean_error(&out, &["writeless.c", "no function `nosuch`"]);
}
