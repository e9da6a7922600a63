//! `pspa-svf`: SVF 3.4's whole-program wave-diff Andersen, reported as `pspa.analysis/1`
//! with pspa's NODE labels, so that `pspa compare` can put it next to `pspa analyze`.
//! A separate program because SVF brings its own LLVM (21), which must not meet KLEE's
//! LLVM 14 in one process.

use clap::{Parser, Subcommand};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

extern "C" {
    fn pspa_svf_analyze(
        path: *const c_char,
        modref: c_int,
        ctx: *mut c_void,
        emit: extern "C" fn(*mut c_void, c_int, *const c_char, *const c_char),
    ) -> c_int;
}

#[derive(Parser)]
#[command(
    name = "pspa-svf",
    version,
    about = "SVF's whole-program Andersen under pspa's labels (the SPA baseline)"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Analyse LLVM bitcode (.bc), IR (.ll) or C (.c, compiled with clang-14 as `pspa
    /// analyze` does) with SVF and print points-to and mod/ref.
    Analyze {
        input: PathBuf,
        /// Print the `pspa.analysis/1` JSON document instead of text.
        #[arg(long)]
        json: bool,
        /// Report only these functions (repeatable); the analysis is still whole-program.
        #[arg(long = "function", value_name = "F")]
        functions: Vec<String>,
        /// Skip SVF's mod/ref (MRGenerator): points-to only, faster on large programs.
        #[arg(long)]
        no_modref: bool,
    },
}

#[derive(Default)]
struct Facts {
    pointers: BTreeMap<String, BTreeSet<Rc<str>>>,
    functions: BTreeMap<String, (BTreeSet<Rc<str>>, BTreeSet<Rc<str>>)>,
    stats: Map<String, Value>,
    warnings: Vec<String>,
    /// Each label once: SQLite's sets repeat a few hundred thousand labels tens of
    /// millions of times.
    labels: HashSet<Rc<str>>,
}

impl Facts {
    fn label(&mut self, l: &str) -> Rc<str> {
        if let Some(r) = self.labels.get(l) {
            return r.clone();
        }
        let r: Rc<str> = Rc::from(l);
        self.labels.insert(r.clone());
        r
    }
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

extern "C" fn emit(ctx: *mut c_void, kind: c_int, a: *const c_char, b: *const c_char) {
    // A panic must not unwind into C++.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let f = unsafe { &mut *(ctx as *mut Facts) };
        let (a, b) = (text(a), text(b));
        match kind as u8 {
            b'p' => {
                let l = f.label(&b);
                f.pointers.entry(a).or_default().insert(l);
            }
            b'v' => {
                f.pointers.entry(a).or_default();
            }
            b'f' => {
                f.functions.entry(a).or_default();
            }
            b'm' => {
                let l = f.label(&b);
                f.functions.entry(a).or_default().0.insert(l);
            }
            b'r' => {
                let l = f.label(&b);
                f.functions.entry(a).or_default().1.insert(l);
            }
            b's' => {
                let v = b.parse::<f64>().map(|x| json!(x)).unwrap_or(json!(b));
                f.stats.insert(a, v);
            }
            _ => f.warnings.push(a),
        }
    }));
}

/// SVF exits or crashes on some bad input; catch what can be caught before handing it over.
fn check_input(path: &Path) -> anyhow::Result<()> {
    let bytes = std::fs::read(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read: {}", path.display(), e))?;
    let bitcode = bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    let ir = path.extension().is_some_and(|e| e == "ll") && std::str::from_utf8(&bytes).is_ok();
    if !bitcode && !ir {
        anyhow::bail!(
            "{}: not LLVM bitcode (no BC magic) nor a .ll file",
            path.display()
        );
    }
    Ok(())
}

/// A `.c` input compiled as `pspa analyze` compiles it (same flags, so the same debug lines
/// and names, hence the same labels). Not shared with pspa's front end: linking pspa would
/// bring LLVM 14 into a process that already has SVF's LLVM 21.
fn compile_c(src: &Path, out: &Path) -> anyhow::Result<()> {
    let cc = std::env::var("PSPA_CLANG").unwrap_or_else(|_| "clang-14".into());
    let o = std::process::Command::new(&cc)
        .args([
            "-g",
            "-O0",
            "-Xclang",
            "-disable-O0-optnone",
            "-fno-discard-value-names",
            "-emit-llvm",
            "-c",
        ])
        .arg(src)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot run `{}` ({}); install clang-14",
                src.display(),
                cc,
                e
            )
        })?;
    if !o.status.success() {
        anyhow::bail!(
            "{}: {} failed:\n{}",
            src.display(),
            cc,
            String::from_utf8_lossy(&o.stderr)
        );
    }
    Ok(())
}

/// Removes the compiled bitcode of a `.c` input when the run ends.
struct TempFile(Option<PathBuf>);

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(p) = &self.0 {
            let _ = std::fs::remove_file(p);
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let Cmd::Analyze {
        input,
        json,
        functions,
        no_modref,
    } = cli.cmd;
    let mut temp = TempFile(None);
    let bitcode = if input.extension().is_some_and(|e| e == "c") {
        let out = std::env::temp_dir().join(format!("pspa-svf-{}.bc", std::process::id()));
        compile_c(&input, &out)?;
        temp.0 = Some(out.clone());
        out
    } else {
        check_input(&input)?;
        input.clone()
    };
    let mut facts = Facts::default();
    let c = CString::new(bitcode.to_string_lossy().as_bytes())?;
    let t = std::time::Instant::now();
    let rc = unsafe {
        pspa_svf_analyze(
            c.as_ptr(),
            (!no_modref) as c_int,
            &mut facts as *mut Facts as *mut c_void,
            emit,
        )
    };
    for w in &facts.warnings {
        eprintln!("pspa-svf: warning: {}", w);
    }
    if rc != 0 {
        anyhow::bail!("{}: SVF failed", input.display());
    }
    // Like `pspa analyze`'s avg_points_to (pointers that point somewhere), over the source
    // variables: SVF's own top-level average counts its temporaries, which pspa's do not match.
    let sizes: Vec<usize> = facts
        .pointers
        .values()
        .map(|s| s.len())
        .filter(|&n| n > 0)
        .collect();
    let n = sizes.len();
    facts
        .stats
        .insert("source_pointers_nonempty".into(), json!(n));
    facts.stats.insert(
        "avg_source_points_to".into(),
        json!(if n == 0 {
            0.0
        } else {
            sizes.iter().sum::<usize>() as f64 / n as f64
        }),
    );
    facts.stats.insert(
        "max_source_points_to".into(),
        json!(sizes.iter().max().copied().unwrap_or(0)),
    );
    facts
        .stats
        .insert("wall_ms".into(), json!(t.elapsed().as_secs_f64() * 1e3));
    let keep = |f: &str| functions.is_empty() || functions.iter().any(|g| g == f);
    let keep_var = |v: &str| {
        functions.is_empty()
            || v.split_once("::")
                .is_some_and(|(f, _)| functions.iter().any(|g| g == f))
    };
    // Written straight from the sets, without copying them into a JSON value.
    #[derive(serde::Serialize)]
    struct Sets<'a> {
        #[serde(rename = "mod")]
        modset: Vec<&'a str>,
        #[serde(rename = "ref")]
        refset: Vec<&'a str>,
    }
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        schema: &'static str,
        module: String,
        analysis: &'static str,
        functions: BTreeMap<&'a String, Sets<'a>>,
        pointers: BTreeMap<&'a String, Vec<&'a str>>,
        stats: &'a Map<String, Value>,
    }
    if json {
        let doc = Doc {
            schema: "pspa.analysis/1",
            module: input.display().to_string(),
            analysis: "svf-3.4-andersen-wave-diff",
            functions: facts
                .functions
                .iter()
                .filter(|(f, _)| keep(f))
                .map(|(f, (m, r))| {
                    (
                        f,
                        Sets {
                            modset: strs(m),
                            refset: strs(r),
                        },
                    )
                })
                .collect(),
            pointers: facts
                .pointers
                .iter()
                .filter(|(v, _)| keep_var(v))
                .map(|(v, p)| (v, strs(p)))
                .collect(),
            stats: &facts.stats,
        };
        use std::io::Write;
        let mut w = std::io::BufWriter::new(std::io::stdout().lock());
        serde_json::to_writer_pretty(&mut w, &doc)?;
        writeln!(w)?;
        w.flush()?;
    } else {
        for (f, (m, r)) in facts.functions.iter().filter(|(f, _)| keep(f)) {
            println!(
                "{f}\n  mod: {}\n  ref: {}",
                strs(m).join(" "),
                strs(r).join(" ")
            );
        }
        for (k, v) in &facts.stats {
            println!("{k}: {v}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn strs(s: &BTreeSet<Rc<str>>) -> Vec<&str> {
    s.iter().map(|l| &**l).collect()
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("pspa-svf: error: {:#}", e);
            ExitCode::from(2)
        }
    }
}
