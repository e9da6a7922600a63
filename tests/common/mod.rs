//! Shared by the test crates: the native run under the observation harness, how its
//! facts name pspa's abstract locations, and the C fixtures of a directory.
// Each test crate uses a part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Native run under the observation harness; returns the observed facts.
pub fn observe(path: &Path) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("fixture");
    let out = dir.path().join("obs.txt");
    let cc = Command::new(pspa::frontend::clang())
        .args(["-DOBSERVE", "-g", "-O0", "-w"])
        .arg(path)
        .arg("-o")
        .arg(&bin)
        .output()
        .expect("clang-14 runs");
    assert!(
        cc.status.success(),
        "native build failed: {}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let run = Command::new(&bin)
        .env("OBS_OUT", &out)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(run.status.code().is_some(), "fixture crashed");
    std::fs::read_to_string(&out)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

/// The field labels pspa gives byte `off` of an observed object: any `#k` site of its label,
/// since the harness cannot tell two sites of one line apart. Empty if pspa has no such object.
pub fn site_locs(a: &pspa::analysis::Analysis, label: &str, off: i64) -> Vec<String> {
    std::iter::once(label.to_string())
        .chain((2..10).map(|k| format!("{label}#{k}")))
        .filter_map(|l| a.loc_label(&l, off))
        .collect()
}

/// The C files of `dir` (relative to the crate), sorted.
pub fn c_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    v.sort();
    v
}
