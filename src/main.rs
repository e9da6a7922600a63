//! The `pspa` command line: the analysis core without KLEE.

use clap::{Parser, Subcommand};
use pspa::analysis;
use pspa::facts::Program;
use pspa::frontend::FrontOptions;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "pspa", version, about = "Past-sensitive pointer analysis for KLEE: the core without KLEE")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Whole-program static analysis (SPA) of a .bc, .ll or .c file: mod/ref per function
    /// and points-to per pointer variable.
    Analyze {
        /// Input: LLVM bitcode (.bc), textual IR (.ll), or C (.c, compiled with clang-14).
        input: PathBuf,
        /// Print the `pspa.analysis/1` JSON document instead of text.
        #[arg(long)]
        json: bool,
        /// Report only these functions (repeatable); the analysis is still whole-program.
        #[arg(long = "function", value_name = "F")]
        functions: Vec<String>,
        /// Treat calls to NAME as heap allocation sites, like malloc (repeatable).
        #[arg(long = "allocator", value_name = "NAME")]
        allocators: Vec<String>,
        /// Also print the points-to sets of pointer variables (text mode).
        #[arg(long)]
        pointers: bool,
    },
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("pspa: error: {:#}", e);
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.cmd {
        Cmd::Analyze { input, json, functions, allocators, pointers } => {
            let prog = Program::from_file(&input, &FrontOptions { allocators })?;
            for f in &functions {
                match prog.function_by_name(f) {
                    Some(id) if prog.functions[id as usize].defined => {}
                    Some(_) => anyhow::bail!("{}: function `{}` has no body in this module", input.display(), f),
                    None => anyhow::bail!("{}: unknown function `{}`", input.display(), f),
                }
            }
            let a = analysis::analyze(&prog);
            let report = a.report(&functions);
            let text = if json { serde_json::to_string_pretty(&report)? + "\n" } else { text(&report, pointers) };
            write_stdout(&text)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Write to stdout; a closed pipe (`pspa ... | head`) is not an error.
fn write_stdout(s: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn text(r: &analysis::Report, pointers: bool) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "module {}", r.module);
    for (name, sets) in &r.functions {
        let _ = writeln!(o, "\n{}", name);
        let _ = writeln!(o, "  mod ({}): {}", sets.modset.len(), sets.modset.join(" "));
        let _ = writeln!(o, "  ref ({}): {}", sets.refset.len(), sets.refset.join(" "));
    }
    if pointers {
        let _ = writeln!(o, "\npointers");
        for (v, p) in &r.pointers {
            let _ = writeln!(o, "  {} -> {}", v, p.join(" "));
        }
    }
    let s = &r.stats;
    let _ = writeln!(
        o,
        "\n{} functions, {} objects, {} constraints; avg points-to {:.2}; {} unknown external calls; solved in {:.1} ms",
        s["functions_defined"], s["objects"], s["constraints"], s["avg_points_to"].as_f64().unwrap_or(0.0),
        s["unknown_external_calls"], s["solve_ms"].as_f64().unwrap_or(0.0)
    );
    o
}
