//! Shared by the test crates: the native run under the observation harness.

use std::path::Path;
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
    assert!(cc.status.success(), "native build failed: {}", String::from_utf8_lossy(&cc.stderr));
    let run = Command::new(&bin).env("OBS_OUT", &out).stdin(std::process::Stdio::null()).output().unwrap();
    assert!(run.status.code().is_some(), "fixture crashed");
    std::fs::read_to_string(&out).unwrap_or_default().lines().map(String::from).collect()
}

