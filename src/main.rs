//! The `pspa` command line: the analysis core without KLEE.

use clap::{Parser, Subcommand};
use pspa::facts::Program;
use pspa::frontend::FrontOptions;
use pspa::session::{self, Session, SessionOptions};
use pspa::snapshot::LoadedSnapshot;
use pspa::{analysis, compare};
use std::path::PathBuf;
use std::process::ExitCode;

// Solving allocates and frees many short-lived bitmaps; glibc's malloc spent about a tenth
// of a SQLite solve in its free lists.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "pspa",
    version,
    about = "Past-sensitive pointer analysis for KLEE: the core without KLEE"
)]
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
        /// Leave the `memory` map out of the JSON (it is the largest part on big programs).
        #[arg(long)]
        no_memory: bool,
        /// UNSOUND, for comparisons only: drop the facts SVF misses (pointers in array
        /// initialisers and at offset 0 of struct initialisers, variadic arguments), to
        /// compare set sizes with SVF on equal inputs. Counted in stats.svf_blind_spots.
        #[arg(long)]
        svf_blind_spots: bool,
    },
    /// Compare two `pspa.analysis/1` documents (pspa against pspa-svf, or two runs): per
    /// pointer and per function, facts only one side has, and set sizes.
    Compare {
        a: PathBuf,
        b: PathBuf,
        /// Exit with status 1 when B has a fact A lacks (A should over-approximate B).
        #[arg(long)]
        require_subset: bool,
        /// Compare objects, not fields (drop the `.N` / `.*` suffixes).
        #[arg(long)]
        objects: bool,
        /// Print the comparison as JSON.
        #[arg(long)]
        json: bool,
        /// How many of the most different entries to list, per kind and side.
        #[arg(long, value_name = "N", default_value_t = 5)]
        show: usize,
        /// List the entries with the most one-sided facts about objects of this kind
        /// instead of all kinds (`svf`: SVF's objects with no pspa counterpart).
        #[arg(long, value_name = "K", value_parser = ["global", "stack", "heap", "func", "svf"])]
        kind: Option<String>,
    },
    /// Past-sensitive analysis (PSPA) of calls recorded in state snapshots
    /// (`pspa.snapshot/1`, see docs/snapshot.md): mod/ref of each call.
    Modref {
        /// A snapshot file (repeatable; analysed in order, sharing the post-states of
        /// skipped calls between snapshots of the same `path`).
        #[arg(long = "snapshot", value_name = "S.json", required = true)]
        snapshots: Vec<PathBuf>,
        /// Print `pspa.modref/1` JSON (an array when several snapshots are given).
        #[arg(long)]
        json: bool,
        /// Remove the `@ID` of unique sites and de-duplicate (the paper's SPA comparison).
        #[arg(long)]
        strip_unique: bool,
        /// Treat calls to NAME as heap allocation sites, like malloc (repeatable).
        #[arg(long = "allocator", value_name = "NAME")]
        allocators: Vec<String>,
        /// Analyse every call, even when an isomorphic state was analysed before.
        #[arg(long)]
        no_reuse: bool,
        /// Project the state from every global, not only from those the callee's code
        /// can name (the reference the narrowed projection is checked against).
        #[arg(long)]
        all_globals: bool,
        /// Solve each miss over the whole program, not over the call's slice (the
        /// reference the slices are checked against).
        #[arg(long)]
        whole_program: bool,
        /// Read every object the call can reach before solving, instead of only those
        /// whose contents the analysis reads (the reference the on-demand projection is
        /// checked against).
        #[arg(long)]
        eager: bool,
        /// Follow calls that end the process (exit, abort, a function that cannot
        /// return otherwise) into what they run (atexit handlers...). By default the sets
        /// are what a call does when it returns to its caller; the KLEE plugin's
        /// --pspa-follow-exits.
        #[arg(long)]
        follow_exits: bool,
        /// Give up on a call (an error) once its solve has offered this many points-to
        /// elements to sets (about 0.5e9 a second); the KLEE plugin's --pspa-max-work.
        /// 0 means no bound, as for the plugin; without the option there is none either.
        #[arg(long, value_name = "N")]
        max_work: Option<u64>,
        /// With --max-work: the first time a solve of a function needs more than N, the
        /// call fails and the function's later calls get --max-work (the KLEE plugin's
        /// --pspa-trial-work). Unused when not below --max-work.
        #[arg(long, value_name = "N")]
        trial_work: Option<u64>,
        /// Also report, per pointer the call's accesses dereference, its points-to set
        /// (`points-to` in JSON): what the resolution and WIT clients query.
        #[arg(long)]
        points_to: bool,
        /// Print the reuse statistics (to stderr in text mode; a `reuse` object in JSON).
        #[arg(long)]
        stats: bool,
        /// Bound of the summary cache, per function (least recently used entries go).
        #[arg(long, value_name = "N", default_value_t = session::DEFAULT_ENTRIES_PER_FUNCTION)]
        cache_entries: usize,
    },
    /// Write Integrity Testing colours (paper 6.3): a colour per object field and per write
    /// (`pspa.wit/1`, docs/wit.md). Whole-program (SPA) from a module, or past-sensitive
    /// (PSPA) from a recorded state: the call's function and what it reaches, from that
    /// state.
    Wit {
        /// Input module (.bc, .ll, .c) for the whole-program colours.
        #[arg(required_unless_present = "snapshot", conflicts_with = "snapshot")]
        input: Option<PathBuf>,
        /// A `pspa.snapshot/1` state: the colours of its call, from it.
        #[arg(long, value_name = "S.json")]
        snapshot: Option<PathBuf>,
        /// Print the `pspa.wit/1` JSON document.
        #[arg(long, conflicts_with = "csv")]
        json: bool,
        /// Print the two tables (objects, stores) as CSV.
        #[arg(long)]
        csv: bool,
        /// Treat calls to NAME as heap allocation sites, like malloc (repeatable).
        #[arg(long = "allocator", value_name = "NAME")]
        allocators: Vec<String>,
    },
    /// The bottom-up write summaries of a module's functions (`writeless.rs`): which
    /// functions write nothing outside their own frame in any state (the KLEE plugin
    /// answers their calls without reading the state), which write only their
    /// parameters' objects, and why the others have no summary.
    Writeless {
        /// Input: LLVM bitcode (.bc), textual IR (.ll), or C (.c).
        input: PathBuf,
        /// Treat calls to NAME as heap allocation sites, like malloc (repeatable).
        #[arg(long = "allocator", value_name = "NAME")]
        allocators: Vec<String>,
        /// Count what calls that end the process run (the plugin's --pspa-follow-exits).
        #[arg(long)]
        follow_exits: bool,
        /// Report only these functions (repeatable).
        #[arg(long = "function", value_name = "F")]
        functions: Vec<String>,
    },
    /// Rank the functions of a chopping profile (`chop-profile.csv`, written by KLEE with
    /// `--pspa-chop-profile`; docs/skips.md) by what skipping them would save, with the
    /// reason for each, and print the `--skip-functions=` line to use.
    Skips {
        profile: PathBuf,
        /// How many functions to propose.
        #[arg(long, value_name = "N", default_value_t = pspa::skips::RankOptions::default().top)]
        top: usize,
        /// The largest share of followed calls whose effects were read, for a function to
        /// be proposed.
        #[arg(long, value_name = "R", default_value_t = pspa::skips::RankOptions::default().max_read)]
        max_read: f64,
        /// List every function, those that can never be skipped too.
        #[arg(long)]
        all: bool,
        /// Print the ranking as JSON.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    // Warnings read like the CLI's errors (`pspa: warning: ...`); debug and trace output
    // (RUST_LOG) keeps env_logger's timestamps and targets.
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .format(|buf, rec| {
            use std::io::Write;
            match rec.level() {
                log::Level::Error => writeln!(buf, "pspa: error: {}", rec.args()),
                log::Level::Warn => writeln!(buf, "pspa: warning: {}", rec.args()),
                l => writeln!(
                    buf,
                    "[{} {} {}] {}",
                    buf.timestamp(),
                    l,
                    rec.target(),
                    rec.args()
                ),
            }
        })
        .init();
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
        Cmd::Compare {
            a,
            b,
            require_subset,
            objects,
            json,
            show,
            kind,
        } => {
            let (da, db) = (compare::Doc::load(&a)?, compare::Doc::load(&b)?);
            let c = compare::compare(
                &da,
                &db,
                &compare::Options {
                    objects,
                    show,
                    kind,
                },
            );
            let out = if json {
                serde_json::to_string_pretty(&c)? + "\n"
            } else {
                compare::text(&c, &a.display().to_string(), &b.display().to_string())
            };
            write_stdout(&out)?;
            if require_subset && !c.b_subset_of_a() {
                eprintln!("pspa: {} has facts that {} lacks", b.display(), a.display());
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Analyze {
            input,
            json,
            functions,
            allocators,
            pointers,
            no_memory,
            svf_blind_spots,
        } => {
            let prog = Program::from_file(
                &input,
                &FrontOptions {
                    allocators,
                    svf_blind_spots,
                },
            )?;
            for f in &functions {
                match prog.function_by_name(f) {
                    Some(id) if prog.functions[id as usize].defined => {}
                    Some(_) => anyhow::bail!(
                        "{}: function `{}` has no body in this module",
                        input.display(),
                        f
                    ),
                    None => anyhow::bail!("{}: unknown function `{}`", input.display(), f),
                }
            }
            let a = analysis::analyze(&prog);
            // Streamed, labelling each set as it is written: on a large program the report
            // is gigabytes.
            use std::io::Write;
            let report = a.report_lazy(&functions, json && !no_memory);
            let mut w = std::io::BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
            let r = if json {
                serde_json::to_writer_pretty(&mut w, &report)
                    .map_err(std::io::Error::from)
                    .and_then(|_| w.write_all(b"\n"))
            } else {
                write_text(&mut w, &report, pointers)
            };
            match r.and_then(|_| w.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                r => r?,
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Skips {
            profile,
            top,
            max_read,
            all,
            json,
        } => {
            if !(0.0..=1.0).contains(&max_read) {
                anyhow::bail!("--max-read {max_read}: a share between 0 and 1");
            }
            let p = pspa::skips::Profile::load(&profile)?;
            let o = pspa::skips::RankOptions {
                top,
                max_read,
                ..Default::default()
            };
            let ranked = pspa::skips::rank(&p, &o);
            if json {
                println!("{}", serde_json::to_string_pretty(&ranked)?);
            } else {
                print!("{}", pspa::skips::render(&ranked, all));
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Writeless {
            input,
            allocators,
            follow_exits,
            functions,
        } => {
            let opts = FrontOptions {
                allocators,
                ..Default::default()
            };
            let prog = Program::from_file(&input, &opts)?;
            for f in &functions {
                if prog.function_by_name(f).is_none() {
                    anyhow::bail!("{}: no function `{f}`", input.display());
                }
            }
            let sums = pspa::writeless::summaries(&prog, follow_exits);
            let (mut writeless, mut statics, mut params, mut none) = (0, 0, 0, 0);
            for (func, s) in prog.functions.iter().zip(&sums) {
                if !func.defined || func.body_replaced() {
                    continue;
                }
                match s {
                    Ok(s) if s.is_writeless() => writeless += 1,
                    Ok(s) if s.state_free() => statics += 1,
                    Ok(_) => params += 1,
                    Err(_) => none += 1,
                }
                if !functions.is_empty() && !functions.contains(&func.name) {
                    continue;
                }
                match s {
                    Ok(s) => {
                        let mut what: Vec<String> = (0..63)
                            .filter(|i| s.params & (1u64 << i) != 0)
                            .map(|i| {
                                let p = if s.pointer_params & (1u64 << i) != 0 {
                                    " (pointers too)"
                                } else {
                                    ""
                                };
                                format!("parameter {i}'s objects{p}")
                            })
                            .collect();
                        what.extend(
                            s.statics
                                .iter()
                                .map(|&o| format!("`{}`", prog.objects[o as usize].label)),
                        );
                        if what.is_empty() {
                            println!("{}: writeless", func.name);
                        } else {
                            println!("{}: writes {}", func.name, what.join(", "));
                        }
                    }
                    Err(why) => println!("{}: no summary: {why}", func.name),
                }
            }
            println!("# {writeless} writeless, {statics} writing only static objects, {params} writing their parameters' objects, {none} without a summary");
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Wit {
            input,
            snapshot,
            json,
            csv,
            allocators,
        } => {
            let opts = FrontOptions {
                allocators,
                ..Default::default()
            };
            let colours = match (input, snapshot) {
                (Some(input), _) => pspa::wit::whole_program(&Program::from_file(&input, &opts)?),
                (None, Some(path)) => {
                    let snap = LoadedSnapshot::load(&path)?;
                    if !snap.module_path.exists() {
                        anyhow::bail!(
                            "{}: module {} not found",
                            snap.name(),
                            snap.module_path.display()
                        );
                    }
                    let colours = || -> anyhow::Result<pspa::wit::WitColours> {
                        let mut s = Session::open(&snap.module_path, &opts, Default::default())?;
                        s.check_snapshot(&snap)?;
                        let (_, colours) = s.wit_at(
                            &mut |sess, g, what| session::fetch(&snap, sess.roots(), g, what),
                            &[],
                        )?;
                        Ok(colours)
                    };
                    colours().map_err(|e| anyhow::anyhow!("{}: {:#}", snap.name(), e))?
                }
                (None, None) => unreachable!("clap requires one"),
            };
            let tables = colours.tables;
            let out = if json {
                tables.json()
            } else if csv {
                tables.csv()
            } else {
                format!(
                    "{} colours ({} of heap objects), {} writes, {} through unknown pointers\n",
                    tables.colours,
                    tables.heap_colours,
                    tables.stores.len(),
                    tables.unknown_writes
                )
            };
            write_stdout(&out)?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Modref {
            snapshots,
            json,
            strip_unique,
            allocators,
            no_reuse,
            all_globals,
            whole_program,
            eager,
            follow_exits,
            max_work,
            trial_work,
            points_to,
            stats,
            cache_entries,
        } => {
            let snaps = snapshots
                .iter()
                .map(|p| LoadedSnapshot::load(p))
                .collect::<anyhow::Result<Vec<_>>>()?;
            let opts = FrontOptions {
                allocators,
                ..Default::default()
            };
            let options = SessionOptions {
                reuse: !no_reuse,
                all_globals,
                slices: !whole_program,
                on_demand: !eager,
                // 0: no bound (the plugin's --pspa-max-work=0), not a budget of nothing.
                max_work: max_work.filter(|&n| n > 0),
                trial_work: trial_work.filter(|&n| n > 0),
                points_to,
                cache_entries,
                follow_exits,
                ..Default::default()
            };
            // One session per module: snapshots of different programs do not share anything.
            let mut sessions: std::collections::HashMap<PathBuf, Session> = Default::default();
            let mut reports = Vec::new();
            for s in &snaps {
                let key = s.module_path.clone();
                if !sessions.contains_key(&key) {
                    if !key.exists() {
                        anyhow::bail!("{}: module {} not found", s.name(), key.display());
                    }
                    let sess = Session::open(&key, &opts, options.clone())
                        .map_err(|e| anyhow::anyhow!("{}: {:#}", s.name(), e))?;
                    sessions.insert(key.clone(), sess);
                }
                let mut r = sessions.get_mut(&key).unwrap().analyze_snapshot(s)?;
                if strip_unique {
                    r.modset = session::strip_unique(&r.modset);
                    r.refset = session::strip_unique(&r.refset);
                    r.freeset = session::strip_unique(&r.freeset);
                }
                reports.push(r);
            }
            // Reuse counters summed over sessions (one per module).
            let mut reuse = pspa::summaries::ReuseStats::default();
            for s in sessions.values() {
                reuse.add(&s.reuse_stats());
            }
            let text = if json {
                let mut v = if reports.len() == 1 {
                    serde_json::to_value(&reports[0])?
                } else {
                    serde_json::to_value(&reports)?
                };
                if stats {
                    v = serde_json::json!({"calls": v, "reuse": reuse});
                }
                serde_json::to_string_pretty(&v)? + "\n"
            } else {
                modref_text(&reports)
            };
            if stats && !json {
                eprintln!(
                    "pspa: {} calls, {} analysed, {} reused ({:.2}%), {:.3} ms checking, {:.3} ms solving, {} cache entries, {} evicted",
                    reuse.invocations, reuse.analyses, reuse.reuse_hits, 100.0 * reuse.reuse_ratio, reuse.check_ms,
                    reuse.solve_ms, reuse.entries, reuse.evictions
                );
                eprintln!(
                    "pspa: misses: {} new function, {} different objects, {} different edges, {} other",
                    reuse.miss_new_function, reuse.miss_objects, reuse.miss_edges, reuse.miss_other
                );
            }
            write_stdout(&text)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn modref_text(reports: &[session::ModRefReport]) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    for r in reports {
        let _ = writeln!(
            o,
            "{}: call of {}{}",
            r.snapshot,
            r.function,
            if r.stats.reused {
                " (summary reused)"
            } else {
                ""
            }
        );
        let _ = writeln!(o, "  mod ({}): {}", r.modset.len(), r.modset.join(" "));
        let _ = writeln!(o, "  ref ({}): {}", r.refset.len(), r.refset.join(" "));
        if !r.freeset.is_empty() {
            let _ = writeln!(o, "  free ({}): {}", r.freeset.len(), r.freeset.join(" "));
        }
        for (v, set) in r.points_to.iter().flatten() {
            let _ = writeln!(o, "  {v} -> {}", set.join(" "));
        }
        let st = &r.stats;
        let _ = writeln!(
            o,
            "  {} of {} objects reachable, {} field-insensitive, {} post-states merged, {} functions solved in {:.2} ms",
            st.abstraction.projected_objects, st.abstraction.state_objects, st.abstraction.field_insensitive,
            st.merged_post_states, st.live_functions, st.solve_ms
        );
    }
    o
}

/// Write to stdout; a closed pipe (`pspa ... | head`) is not an error.
fn write_stdout(s: &str) -> anyhow::Result<()> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn write_text(
    o: &mut impl std::io::Write,
    r: &analysis::Report<analysis::Labelled>,
    pointers: bool,
) -> std::io::Result<()> {
    writeln!(o, "module {}", r.module)?;
    for (name, sets) in &r.functions {
        let (m, rf) = (sets.modset.labels(), sets.refset.labels());
        writeln!(o, "\n{}", name)?;
        writeln!(o, "  mod ({}): {}", m.len(), m.join(" "))?;
        writeln!(o, "  ref ({}): {}", rf.len(), rf.join(" "))?;
    }
    if pointers {
        writeln!(o, "\npointers")?;
        for (v, p) in &r.pointers {
            writeln!(o, "  {} -> {}", v, p.labels().join(" "))?;
        }
    }
    let s = &r.stats;
    writeln!(
        o,
        "\n{} functions, {} objects, {} constraints; avg points-to {:.2}; {} unknown external calls; solved in {:.1} ms",
        s["functions_defined"], s["objects"], s["constraints"], s["avg_points_to"].as_f64().unwrap_or(0.0),
        s["unknown_external_calls"], s["solve_ms"].as_f64().unwrap_or(0.0)
    )
}
