//! The experiments pipeline's own machinery, without KLEE, root or network:
//! - installs started at once wait for each other (scripts/setup.sh's lock, used by
//!   experiments/scripts/fetch-source.sh): tests/pipeline/install-lock.sh, with apt stubbed;
//! - the timing runs of a ratio against KLEE alone (experiments/scripts/timed-runs.py) and
//!   the tables made from them (tables.py cost, table3): experiments/scripts/test_tables.py,
//!   with the pipeline's Python (.venv/experiments, made by ./experiments/run.sh; skipped
//!   without it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn check(what: &str, out: Output) {
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn installs_started_at_once_run_one_at_a_time() {
    let out = Command::new("bash")
        .arg(root().join("tests/pipeline/install-lock.sh"))
        .env_remove("PSPA_INSTALL_LOCKED")
        .output()
        .expect("bash runs");
    check("tests/pipeline/install-lock.sh", out);
}

#[test]
fn timing_runs_and_their_tables() {
    let python = root().join(".venv/experiments/bin/python");
    if !Path::new(&python).exists() {
        eprintln!(
            "SKIPPED: no {} (./experiments/run.sh makes it)",
            python.display()
        );
        return;
    }
    let out = Command::new(&python)
        .arg(root().join("experiments/scripts/test_tables.py"))
        .output()
        .expect("python runs");
    check("experiments/scripts/test_tables.py", out);
}
