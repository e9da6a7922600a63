//! Regression benchmark: front end + solve + mod/ref on the repository's C programs.
//! (The SQLite whole-program number is measured with scripts/sqlite-bitcode.sh and
//! `pspa analyze`, see README.)

use criterion::{criterion_group, criterion_main, Criterion};
use pspa::{analysis, facts::Program, frontend};
use std::path::Path;

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut inputs = vec![root.join("examples/fig1.c")];
    for e in std::fs::read_dir(root.join("tests/fixtures")).unwrap() {
        inputs.push(e.unwrap().path());
    }
    inputs.sort();
    // Compile once; the bench measures parsing bitcode, extraction and solving.
    let bcs: Vec<_> = inputs
        .iter()
        .map(|src| {
            let bc = dir
                .path()
                .join(src.file_name().unwrap())
                .with_extension("bc");
            frontend::compile_c(src, &bc).unwrap();
            bc
        })
        .collect();
    c.bench_function("analyze fixtures (load + extract + solve + modref)", |b| {
        b.iter(|| {
            for bc in &bcs {
                let prog = Program::from_file(bc, &Default::default()).unwrap();
                let a = analysis::analyze(&prog);
                std::hint::black_box(a.modref.modset.len());
            }
        })
    });
    let progs: Vec<Program> = bcs
        .iter()
        .map(|bc| Program::from_file(bc, &Default::default()).unwrap())
        .collect();
    c.bench_function("solve fixtures (solve + modref only)", |b| {
        b.iter(|| {
            for p in &progs {
                std::hint::black_box(analysis::analyze(p).modref.modset.len());
            }
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
