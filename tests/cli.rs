//! The `pspa` binary as a user runs it: JSON shape, filters, and bad input.

use std::path::Path;
use std::process::{Command, Output};

fn pspa(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pspa")).args(args).output().expect("pspa runs")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).display().to_string()
}

fn assert_clean_error(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "exit code 2 expected, stderr: {}", err);
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
    let m: Vec<&str> = v["functions"]["table_insert"]["mod"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert!(m.contains(&"heap:table_insert:33.*") && m.contains(&"heap:table_alloc:14.0"));
    assert_eq!(v["pointers"]["main::e"], serde_json::json!(["heap:table_insert:32.0"]));
    assert!(v["stats"]["constraints"].as_u64().unwrap() > 0);
}

#[test]
fn function_filter_restricts_the_report() {
    let out = pspa(&["analyze", &fixture("fig1.c"), "--json", "--function", "table_lookup"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fns: Vec<&String> = v["functions"].as_object().unwrap().keys().collect();
    assert_eq!(fns, vec!["table_lookup"]);
    assert!(v["pointers"].as_object().unwrap().keys().all(|k| k.starts_with("table_lookup::")));
}

#[test]
fn textual_ir_and_bitcode_give_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("fig1.bc");
    let ll = dir.path().join("fig1.ll");
    pspa::frontend::compile_c(Path::new(&fixture("fig1.c")), &bc).unwrap();
    let dis = Command::new("llvm-dis-14").arg(&bc).arg("-o").arg(&ll).status();
    let a = pspa(&["analyze", bc.to_str().unwrap(), "--json", "--function", "table_insert"]);
    let va: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert_eq!(va["functions"]["table_insert"]["mod"].as_array().unwrap().len(), 5);
    if dis.is_ok_and(|s| s.success()) {
        let b = pspa(&["analyze", ll.to_str().unwrap(), "--json", "--function", "table_insert"]);
        let vb: serde_json::Value = serde_json::from_slice(&b.stdout).unwrap();
        assert_eq!(va["functions"], vb["functions"]);
    }
}

#[test]
fn missing_file() {
    assert_clean_error(&pspa(&["analyze", "/nonexistent/x.bc"]), &["/nonexistent/x.bc", "cannot read"]);
}

#[test]
fn truncated_bitcode() {
    let dir = tempfile::tempdir().unwrap();
    let bc = dir.path().join("fig1.bc");
    pspa::frontend::compile_c(Path::new(&fixture("fig1.c")), &bc).unwrap();
    let bytes = std::fs::read(&bc).unwrap();
    let cut = dir.path().join("cut.bc");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    assert_clean_error(&pspa(&["analyze", cut.to_str().unwrap()]), &["cut.bc", "malformed bitcode"]);
}

#[test]
fn text_file_is_not_ir() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("notes.txt");
    std::fs::write(&t, "this is not LLVM IR\n").unwrap();
    assert_clean_error(&pspa(&["analyze", t.to_str().unwrap()]), &["notes.txt", "malformed LLVM IR"]);
    let bin = dir.path().join("blob.bc");
    std::fs::write(&bin, [0u8, 159, 146, 150, 1, 2, 3]).unwrap();
    assert_clean_error(&pspa(&["analyze", bin.to_str().unwrap()]), &["blob.bc", "not LLVM bitcode"]);
}

#[test]
fn broken_c_and_unknown_function() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("bad.c");
    std::fs::write(&c, "int main( { return 0; }\n").unwrap();
    assert_clean_error(&pspa(&["analyze", c.to_str().unwrap()]), &["bad.c", "clang-14 failed"]);
    assert_clean_error(&pspa(&["analyze", &fixture("fig1.c"), "--function", "nope"]), &["unknown function `nope`"]);
}

#[test]
fn missing_clang_is_reported() {
    let out = Command::new(env!("CARGO_BIN_EXE_pspa"))
        .args(["analyze", &fixture("fig1.c")])
        .env("PSPA_CLANG", "clang-does-not-exist")
        .output()
        .unwrap();
    assert_clean_error(&out, &["clang-does-not-exist", "not found", "apt-get install clang-14"]);
}
