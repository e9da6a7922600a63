//! Choosing what chopping skips (`pspa skips`, KLEE's `--skip-functions=auto`).
//!
//! Facts in: a profile of a run, per function (`chop-profile.csv`, written by the KLEE
//! plugin's chopping client, docs/skips.md): how much its calls cost (instructions inside
//! them, forks inside them, the instructions of the paths those forks made) and how often
//! the path later read what the call may have written (its past-sensitive mod-set) or used
//! its result: each such read is a recovery chopping would have made. Relations out: a
//! verdict per function with its reason, and the functions worth skipping, best first.
//!
//! Skipping a call saves, when the call is never recovered, what it ran and what the paths
//! its forks made ran; a recovered call runs anyway (its forks too), so it saves nothing
//! and costs the skip's overhead. Everything is counted in KLEE instructions; seconds (the
//! analyses) are converted at the profile run's own rate. The same ranking runs inside
//! KLEE (the bridge's `rank_skips`), so the CLI and the online choice agree.

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

/// One call site's row of `chop-profile.csv`: a function called from one source line (0:
/// unknown). Counts are over the run's ordinary paths (recovery states are not profiled).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FunctionProfile {
    pub function: String,
    #[serde(default)]
    pub line: u32,
    /// Calls that ran.
    pub calls: u64,
    /// Calls whose result the caller uses: chopping would recover them at the first use.
    pub result_used: u64,
    /// Instructions executed inside its calls, callees included (its outermost activation
    /// counts; each instruction once, on whichever path ran it).
    pub instructions: u64,
    /// Forks inside its calls, callees included.
    pub forks: u64,
    /// Instructions run by the paths forked inside its calls, from the fork to the path's end.
    pub path_instructions: u64,
    /// Calls analysed (a sample: at most the profile's `sample` per function).
    pub analysed: u64,
    /// Sum over the analysed calls of their mod-set sizes (abstract locations).
    pub mod_locations: u64,
    /// Calls followed after they returned: an analysed call whose mod-set was watched, or a
    /// call whose result is used (read at its first use).
    pub watched: u64,
    /// Followed calls whose path then read what the call may have written (a load, a free,
    /// a write at a symbolic offset, an external call) or used its result: recoveries.
    pub read: u64,
    /// Mean instructions from the return to that read.
    pub read_after_mean: f64,
    /// Followed calls whose path ended without such a read.
    pub unread: u64,
    /// Seconds spent analysing its sampled calls after the first four (those fill the
    /// summary cache, which later calls reuse: chopping pays them once).
    pub analysis_s: f64,
    /// The analysed calls `analysis_s` covers.
    #[serde(default)]
    pub warm_analyses: u64,
    /// Why it can never be skipped (empty: it can).
    #[serde(default)]
    pub excluded: String,
    /// Its calling functions, `name:calls` separated by spaces.
    #[serde(default)]
    pub callers: String,
    /// Where the path read what it wrote (`file:line x count`, the first eight places):
    /// the loads that would have recovered it.
    #[serde(default)]
    pub read_at: String,
}

/// What the profile's header says about the run (`# pspa chop profile: key=value ...`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunInfo {
    pub instructions: u64,
    pub wall_s: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub run: RunInfo,
    pub functions: Vec<FunctionProfile>,
}

/// The header line every profile starts with.
pub const HEADER: &str = "# pspa chop profile/1:";

impl Profile {
    pub fn load(path: &Path) -> Result<Profile> {
        let text = std::fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
        Profile::parse(&text).with_context(|| format!("{}: not a chop profile", path.display()))
    }

    pub fn parse(text: &str) -> Result<Profile> {
        let first = text.lines().next().unwrap_or("");
        let Some(rest) = first.strip_prefix(HEADER) else {
            bail!("line 1: expected a header starting with `{HEADER}`, found `{first}`");
        };
        let mut instructions = None;
        let mut wall_s = None;
        for kv in rest.split_whitespace() {
            let Some((k, v)) = kv.split_once('=') else {
                bail!("line 1: `{kv}` is not key=value");
            };
            match k {
                "instructions" => instructions = Some(v.parse().with_context(|| format!("line 1: instructions={v}"))?),
                "wall_s" => wall_s = Some(v.parse().with_context(|| format!("line 1: wall_s={v}"))?),
                _ => {} // other keys describe the run for people (mode, sample)
            }
        }
        let (Some(instructions), Some(wall_s)) = (instructions, wall_s) else {
            bail!("line 1: the header needs instructions= and wall_s=");
        };
        let mut rd = csv::ReaderBuilder::new().comment(Some(b'#')).from_reader(text.as_bytes());
        let mut functions = Vec::new();
        for row in rd.deserialize() {
            let row: FunctionProfile = row.map_err(|e| {
                let line = e.position().map_or(String::from("a row"), |p| format!("line {}", p.line()));
                let what = match e.kind() {
                    csv::ErrorKind::Deserialize { err, .. } => {
                        let field = err.field().map_or(String::new(), |i| format!("field {}: ", i + 1));
                        format!("{field}{}", err.kind())
                    }
                    _ => e.to_string(),
                };
                anyhow::anyhow!("{line}: {what}")
            })?;
            functions.push(row);
        }
        Ok(Profile { run: RunInfo { instructions, wall_s }, functions })
    }

    pub fn to_csv(&self) -> String {
        let mut out = format!("{HEADER} instructions={} wall_s={}\n", self.run.instructions, self.run.wall_s);
        let mut w = csv::Writer::from_writer(Vec::new());
        for f in &self.functions {
            w.serialize(f).expect("a profile row serialises");
        }
        out.push_str(&String::from_utf8(w.into_inner().expect("in memory")).expect("utf-8"));
        out
    }
}

/// The ranking's knobs. The defaults are the plugin's and the CLI's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankOptions {
    /// How many functions to propose.
    pub top: usize,
    /// Followed calls needed before a recovery rate is believed.
    pub min_watched: u64,
    /// The largest share of followed calls whose effects were read, for a function to be
    /// proposed: beyond it, most skips become recoveries (the gain weighs the rest; this
    /// bounds what a small sample can promise).
    pub max_read: f64,
    /// What one skipped call costs besides its analysis, in instructions: the snapshot (a
    /// state copy) and, when recovered, the recovery state and bringing its writes over.
    pub skip_cost: f64,
}

impl Default for RankOptions {
    fn default() -> Self {
        RankOptions { top: 5, min_watched: 3, max_read: 0.75, skip_cost: 2_000.0 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Proposed.
    Skip,
    /// Could be skipped, but the profile does not show it pays (or others pay more).
    Candidate,
    /// Cannot be skipped soundly or usefully.
    Never,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    pub function: String,
    /// The call site's line (0: every call of the function).
    pub line: u32,
    pub verdict: Verdict,
    /// Expected instructions saved over the profiled run, net of the skips' costs.
    pub gain: f64,
    /// Share of followed calls whose effects were read (None: none followed).
    pub read_ratio: Option<f64>,
    pub reason: String,
}

/// Instructions per second of the profiled run (1M/s if it reports no time).
fn rate(run: &RunInfo) -> f64 {
    if run.wall_s > 0.0 && run.instructions > 0 { run.instructions as f64 / run.wall_s } else { 1e6 }
}

/// Expected net gain of skipping every call of `f` when a share `read` of them is recovered.
pub fn gain(f: &FunctionProfile, run: &RunInfo, read: f64, o: &RankOptions) -> f64 {
    if f.calls == 0 {
        return 0.0;
    }
    let calls = f.calls as f64;
    let saved_per_call = (f.instructions + f.path_instructions) as f64 / calls;
    let analysis_per_call =
        if f.warm_analyses > 0 { f.analysis_s / f.warm_analyses as f64 * rate(run) } else { 0.0 };
    calls * ((1.0 - read) * saved_per_call - analysis_per_call - o.skip_cost)
}

fn callers(f: &FunctionProfile) -> Vec<&str> {
    f.callers
        .split_whitespace()
        .filter_map(|c| c.rsplit_once(':').map(|(name, n)| (name, n)))
        .filter(|(_, n)| n.parse::<u64>().map_or(true, |n| n > 0))
        .map(|(name, _)| name)
        .collect()
}

/// Every site of the profile with its verdict, proposed ones first (by gain), then the
/// candidates by gain, then the others by name. A function is covered (its calls run only
/// inside skipped calls) when each of its callers has a proposed site: an approximation
/// that a caller's other sites may still run.
pub fn rank(p: &Profile, o: &RankOptions) -> Vec<Ranked> {
    let mut out: Vec<Ranked> = p.functions.iter().map(|f| judge(f, &p.run, o)).collect();
    let order = |r: &Ranked| match r.verdict {
        Verdict::Skip => 0,
        Verdict::Candidate => 1,
        Verdict::Never => 2,
    };
    out.sort_by(|a, b| {
        order(a).cmp(&order(b)).then(b.gain.total_cmp(&a.gain)).then(a.function.cmp(&b.function))
    });
    // The best first; a function whose every caller is already skipped is skipped with
    // them (its calls run only inside their recoveries).
    let by_site: HashMap<(&str, u32), &FunctionProfile> =
        p.functions.iter().map(|f| ((f.function.as_str(), f.line), f)).collect();
    let mut chosen: HashSet<String> = HashSet::new();
    let mut proposed = 0;
    for r in out.iter_mut() {
        if r.verdict != Verdict::Skip {
            continue;
        }
        let cs = by_site.get(&(r.function.as_str(), r.line)).map(|f| callers(f)).unwrap_or_default();
        if !cs.is_empty() && cs.iter().all(|c| chosen.contains(*c)) {
            r.verdict = Verdict::Candidate;
            r.reason = format!("its calls come from {} only, which {} skipped", cs.join(", "),
                               if cs.len() == 1 { "is" } else { "are" });
        } else if proposed >= o.top {
            r.verdict = Verdict::Candidate;
            r.reason = format!("{} (below the top {})", r.reason, o.top);
        } else {
            proposed += 1;
            chosen.insert(r.function.clone());
        }
    }
    out.sort_by(|a, b| {
        order(a).cmp(&order(b)).then(b.gain.total_cmp(&a.gain)).then(a.function.cmp(&b.function))
    });
    out
}

/// One function's verdict before the top N and the callers are considered.
pub fn judge(f: &FunctionProfile, run: &RunInfo, o: &RankOptions) -> Ranked {
    let read_ratio = (f.watched > 0).then(|| f.read as f64 / f.watched as f64);
    let mk = |verdict, gain, reason: String| Ranked {
        function: f.function.clone(),
        line: f.line,
        verdict,
        gain,
        read_ratio,
        reason,
    };
    if !f.excluded.is_empty() {
        return mk(Verdict::Never, 0.0, f.excluded.clone());
    }
    if f.function == "main" {
        return mk(Verdict::Never, 0.0, "the program itself".into());
    }
    if f.calls == 0 {
        return mk(Verdict::Never, 0.0, "never called in the profile".into());
    }
    if f.result_used * 2 > f.calls {
        return mk(Verdict::Never, 0.0, format!(
            "its result is used after {} of {} calls: each skip would be recovered at the first use",
            f.result_used, f.calls));
    }
    let r = read_ratio.unwrap_or(1.0);
    let g = gain(f, run, r, o);
    let costs = format!("{} calls, {} forks, {:.0} instructions a call and {:.0} on the paths its forks made",
                        f.calls, f.forks, f.instructions as f64 / f.calls as f64,
                        f.path_instructions as f64 / f.calls as f64);
    if f.watched < o.min_watched {
        return mk(Verdict::Candidate, g, format!(
            "{} of its calls followed after returning, {} needed to predict recoveries", f.watched, o.min_watched));
    }
    let read = format!("effects read after {} of {} followed calls", f.read, f.watched);
    if r > o.max_read {
        return mk(Verdict::Candidate, g, format!("{read}: most skips would be recovered"));
    }
    if g <= 0.0 {
        return mk(Verdict::Candidate, g, format!("saves less than its skips cost ({costs}; {read})"));
    }
    mk(Verdict::Skip, g, format!("{costs}; {read}"))
}

/// Whether a function skipped online should run again: after `min` skips, when more than
/// half were recovered or the gain at the observed rate is gone. The reason, if so.
pub fn stop_reason(f: &FunctionProfile, run: &RunInfo, skips: u64, recoveries: u64, o: &RankOptions) -> Option<String> {
    const MIN_SKIPS: u64 = 8;
    if skips < MIN_SKIPS {
        return None;
    }
    let r = recoveries as f64 / skips as f64;
    if r > 0.5 || gain(f, run, r, o) <= 0.0 {
        return Some(format!("{recoveries} of its {skips} skipped calls were recovered"));
    }
    None
}

/// `F` or `F:LINE`, as `--skip-functions` takes it.
fn site_name(function: &str, line: u32) -> String {
    if line == 0 { function.to_string() } else { format!("{function}:{line}") }
}

/// The `--skip-functions=` value for the proposed sites: `F` when every profiled site of
/// F is proposed (or its line is unknown), else `F:L1/L2`, in ranking order.
pub fn skip_line(ranked: &[Ranked]) -> String {
    let mut order: Vec<&str> = Vec::new();
    let mut lines: HashMap<&str, Vec<u32>> = HashMap::new();
    let mut all: HashMap<&str, bool> = HashMap::new();
    for r in ranked {
        let skip = r.verdict == Verdict::Skip;
        let e = all.entry(r.function.as_str()).or_insert(true);
        *e &= skip;
        if skip {
            if !lines.contains_key(r.function.as_str()) {
                order.push(&r.function);
            }
            lines.entry(&r.function).or_default().push(r.line);
        }
    }
    order
        .iter()
        .map(|f| {
            let ls = &lines[f];
            if all[f] || ls.contains(&0) {
                f.to_string()
            } else {
                let mut ls = ls.clone();
                ls.sort_unstable();
                format!("{f}:{}", ls.iter().map(u32::to_string).collect::<Vec<_>>().join("/"))
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The ranking as `pspa skips` prints it.
pub fn render(ranked: &[Ranked], all: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:>4}  {:<36} {:<9} {:>14} {:>6}  reason", "rank", "call site", "verdict", "gain (instr)", "read");
    for (i, r) in ranked.iter().enumerate() {
        if !all && r.verdict == Verdict::Never {
            continue;
        }
        let v = match r.verdict {
            Verdict::Skip => "skip",
            Verdict::Candidate => "candidate",
            Verdict::Never => "never",
        };
        let read = r.read_ratio.map_or("-".to_string(), |x| format!("{:.0}%", x * 100.0));
        let _ = writeln!(out, "{:>4}  {:<36} {:<9} {:>14.0} {:>6}  {}", i + 1, site_name(&r.function, r.line), v,
                         r.gain, read, r.reason);
    }
    let line = skip_line(ranked);
    if line.is_empty() {
        let _ = writeln!(out, "\nnothing to skip: no call site's profile shows skipping it pays");
    } else {
        let _ = writeln!(out, "\n--skip-functions={line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> FunctionProfile {
        FunctionProfile { function: name.into(), ..Default::default() }
    }
    const RUN: RunInfo = RunInfo { instructions: 1_000_000, wall_s: 1.0 };

    /// A forking parser whose effects are never read outranks a cheap helper, and the
    /// helper called only from it is covered.
    #[test]
    fn forks_never_read_are_proposed_and_helpers_inside_them_are_covered() {
        // parse: 10 calls, 100k instructions inside and 900k on its forks' paths, watched 10
        // times, read never: gain = 10 * (1 * 100k - 0 - 2k) = 980k.
        let parse = FunctionProfile { calls: 10, instructions: 100_000, forks: 40, path_instructions: 900_000,
            watched: 10, unread: 10, callers: "main:10".into(), ..row("parse") };
        // lex: called only from parse; also forks and never read.
        let lex = FunctionProfile { calls: 50, instructions: 80_000, forks: 30, path_instructions: 500_000,
            watched: 50, unread: 50, callers: "parse:50".into(), ..row("lex") };
        // log: cheap, no forks: 100 calls of 50 instructions cost 2k each to skip.
        let log = FunctionProfile { calls: 100, instructions: 5_000, watched: 100, unread: 100,
            callers: "main:100".into(), ..row("log") };
        let p = Profile { run: RUN, functions: vec![log, lex, parse] };
        let r = rank(&p, &RankOptions::default());
        assert_eq!(r[0].function, "parse");
        assert_eq!(r[0].verdict, Verdict::Skip);
        let lex = r.iter().find(|x| x.function == "lex").unwrap();
        assert_eq!(lex.verdict, Verdict::Candidate, "{lex:?}");
        assert!(lex.reason.contains("come from parse"));
        let log = r.iter().find(|x| x.function == "log").unwrap();
        assert_eq!(log.verdict, Verdict::Candidate);
        assert!(log.gain < 0.0 && log.reason.contains("saves less"), "{log:?}");
        assert!(render(&r, false).contains("--skip-functions=parse\n"));
    }

    /// A function whose effects are read after most calls, or whose result is used, is not
    /// proposed, however much it forks.
    #[test]
    fn read_effects_and_used_results_are_not_proposed() {
        let init = FunctionProfile { calls: 20, instructions: 50_000, forks: 20, path_instructions: 400_000,
            watched: 20, read: 18, ..row("init") };
        let get = FunctionProfile { calls: 20, result_used: 20, instructions: 50_000, forks: 20,
            path_instructions: 400_000, ..row("get") };
        let main = FunctionProfile { calls: 1, instructions: 1_000_000, forks: 60, watched: 1, unread: 1, ..row("main") };
        let noret = FunctionProfile { calls: 3, excluded: "it does not return".into(), ..row("fatal") };
        let p = Profile { run: RUN, functions: vec![init, get, main, noret] };
        let r = rank(&p, &RankOptions::default());
        assert!(r.iter().all(|x| x.verdict != Verdict::Skip), "{r:?}");
        let v = |n: &str| r.iter().find(|x| x.function == n).unwrap().clone();
        assert!(v("init").reason.contains("18 of 20"));
        assert_eq!(v("get").verdict, Verdict::Never);
        assert_eq!(v("main").verdict, Verdict::Never);
        assert_eq!(v("fatal").reason, "it does not return");
        assert!(render(&r, true).contains("nothing to skip"));
    }

    /// The gain is linear in the share recovered: all recovered saves nothing and costs the
    /// skips; and the analyses' seconds count at the run's rate.
    #[test]
    fn gain_counts_recoveries_and_analysis_time() {
        let f = FunctionProfile { calls: 10, instructions: 10_000, path_instructions: 30_000, analysed: 9,
            analysis_s: 0.005, warm_analyses: 5, ..row("f") };
        let o = RankOptions::default();
        // 1 ms of analysis per analysed call = 1,000 instructions at 1M/s.
        assert_eq!(gain(&f, &RUN, 0.0, &o), 10.0 * (4_000.0 - 1_000.0 - 2_000.0));
        assert_eq!(gain(&f, &RUN, 1.0, &o), -10.0 * 3_000.0);
        assert!(stop_reason(&f, &RUN, 7, 7, &o).is_none(), "too few skips to judge");
        assert!(stop_reason(&f, &RUN, 10, 6, &o).is_some());
        assert!(stop_reason(&f, &RUN, 10, 0, &o).is_none());
    }

    /// Only the top N are proposed.
    #[test]
    fn top_n_bounds_the_proposal() {
        let fs = (0..4)
            .map(|i| FunctionProfile { calls: 1, instructions: 10_000 * (i + 1), watched: 3, unread: 3,
                callers: "main:1".into(), ..row(&format!("f{i}")) })
            .collect();
        let r = rank(&Profile { run: RUN, functions: fs }, &RankOptions { top: 2, ..Default::default() });
        let skip: Vec<_> = r.iter().filter(|x| x.verdict == Verdict::Skip).map(|x| x.function.as_str()).collect();
        assert_eq!(skip, ["f3", "f2"]);
        assert!(r[2].reason.contains("below the top 2"));
    }

    /// One function read right after its calls from one place and never from another:
    /// only the second site is proposed, as F:LINE.
    #[test]
    fn sites_of_one_function_are_judged_apart() {
        let inner = FunctionProfile { line: 1345, calls: 20, instructions: 1_000_000, watched: 20, read: 19,
            callers: "decode:20".into(), ..row("del") };
        let outer = FunctionProfile { line: 28, calls: 20, instructions: 1_000_000, watched: 20, unread: 20,
            callers: "main:20".into(), ..row("del") };
        let r = rank(&Profile { run: RUN, functions: vec![inner, outer] }, &RankOptions::default());
        assert_eq!((r[0].line, r[0].verdict), (28, Verdict::Skip));
        assert_eq!((r[1].line, r[1].verdict), (1345, Verdict::Candidate));
        assert_eq!(skip_line(&r), "del:28");
        assert!(render(&r, false).contains("del:1345"));
    }

    #[test]
    fn profiles_round_trip_and_bad_ones_name_the_problem() {
        let p = Profile { run: RUN, functions: vec![FunctionProfile { calls: 3, callers: "a:1 b:2".into(),
            excluded: "x, y".into(), read_after_mean: 1.5, ..row("f") }] };
        assert_eq!(Profile::parse(&p.to_csv()).unwrap(), p);
        let e = Profile::parse("function,calls\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 1"), "{e:#}");
        let bad = p.to_csv().replace(",3,", ",three,");
        let e = Profile::parse(&bad).unwrap_err();
        assert!(format!("{e:#}").contains("line 3: field 3"), "{e:#}");
    }
}
