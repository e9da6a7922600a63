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

use anyhow::{bail, Context, Result};
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
    /// Followed calls whose skip would have been analysed: chopping analyses a skipped call
    /// only when its path touches an object that existed at the call (or uses its result),
    /// so a call nothing touches after costs no analysis. None (an older profile): all.
    #[serde(default)]
    pub analysis_needed: Option<u64>,
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
    /// Of those reads, the ones made inside a call that began after the return, by that
    /// call's site (`F:LINE xcount`, the outermost such call): skipping that site (or its
    /// function) too would have skipped the read.
    #[serde(default)]
    pub read_inside: String,
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
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read", path.display()))?;
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
                "instructions" => {
                    instructions = Some(
                        v.parse()
                            .with_context(|| format!("line 1: instructions={v}"))?,
                    )
                }
                "wall_s" => {
                    wall_s = Some(v.parse().with_context(|| format!("line 1: wall_s={v}"))?)
                }
                _ => {} // other keys describe the run for people (mode, sample)
            }
        }
        let (Some(instructions), Some(wall_s)) = (instructions, wall_s) else {
            bail!("line 1: the header needs instructions= and wall_s=");
        };
        let mut rd = csv::ReaderBuilder::new()
            .comment(Some(b'#'))
            .from_reader(text.as_bytes());
        let mut functions = Vec::new();
        for row in rd.deserialize() {
            let row: FunctionProfile = row.map_err(|e| {
                let line = e
                    .position()
                    .map_or(String::from("a row"), |p| format!("line {}", p.line()));
                let what = match e.kind() {
                    csv::ErrorKind::Deserialize { err, .. } => {
                        let field = err
                            .field()
                            .map_or(String::new(), |i| format!("field {}: ", i + 1));
                        format!("{field}{}", err.kind())
                    }
                    _ => e.to_string(),
                };
                anyhow::anyhow!("{line}: {what}")
            })?;
            functions.push(row);
        }
        Ok(Profile {
            run: RunInfo {
                instructions,
                wall_s,
            },
            functions,
        })
    }

    pub fn to_csv(&self) -> String {
        let mut out = format!(
            "{HEADER} instructions={} wall_s={}\n",
            self.run.instructions, self.run.wall_s
        );
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
        RankOptions {
            top: 8,
            min_watched: 3,
            max_read: 0.75,
            skip_cost: 2_000.0,
        }
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
    /// The call site's line (0: unknown).
    pub line: u32,
    /// Proposed as every call of the function (`F`), not this site alone (`F:LINE`).
    pub whole: bool,
    pub verdict: Verdict,
    /// Expected instructions saved over the profiled run, net of the skips' costs.
    pub gain: f64,
    /// Share of followed calls whose effects were read (None: none followed).
    pub read_ratio: Option<f64>,
    pub reason: String,
}

/// Instructions per second of the profiled run (1M/s if it reports no time).
fn rate(run: &RunInfo) -> f64 {
    if run.wall_s > 0.0 && run.instructions > 0 {
        run.instructions as f64 / run.wall_s
    } else {
        1e6
    }
}

/// The share of `f`'s skips that would be analysed (see `analysis_needed`).
fn analysed_share(f: &FunctionProfile) -> f64 {
    match f.analysis_needed {
        Some(n) if f.watched > 0 => (n as f64 / f.watched as f64).min(1.0),
        _ => 1.0,
    }
}

/// Expected net gain of skipping every call of `f` when a share `read` of them is recovered.
pub fn gain(f: &FunctionProfile, run: &RunInfo, read: f64, o: &RankOptions) -> f64 {
    if f.calls == 0 {
        return 0.0;
    }
    let calls = f.calls as f64;
    let saved_per_call = (f.instructions + f.path_instructions) as f64 / calls;
    let analysis_per_call = if f.warm_analyses > 0 {
        f.analysis_s / f.warm_analyses as f64 * rate(run) * analysed_share(f)
    } else {
        0.0
    };
    calls * ((1.0 - read) * saved_per_call - analysis_per_call - o.skip_cost)
}

fn callers(f: &FunctionProfile) -> Vec<&str> {
    f.callers
        .split_whitespace()
        .filter_map(|c| c.rsplit_once(':'))
        .filter(|(_, n)| n.parse::<u64>().map_or(true, |n| n > 0))
        .map(|(name, _)| name)
        .collect()
}

/// What the ranking chooses: every call of a function, or the calls from one site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Unit<'a> {
    Whole(&'a str),
    Site(&'a str, u32),
}

impl Unit<'_> {
    fn name(&self) -> String {
        match *self {
            Unit::Whole(f) => f.to_string(),
            Unit::Site(f, l) => site_name(f, l),
        }
    }
}

/// A reader chain of `read_inside`: the sites of the calls a read was made inside.
type Chain<'a> = Vec<(&'a str, u32)>;

fn parse_inside(s: &str) -> Vec<(Chain<'_>, u64)> {
    s.split_whitespace()
        .filter_map(|tok| {
            let (chain, n) = tok.rsplit_once('x')?;
            let chain: Option<Chain> = chain
                .split('>')
                .map(|e| {
                    e.rsplit_once(':')
                        .and_then(|(f, l)| Some((f, l.parse().ok()?)))
                })
                .collect();
            Some((chain?, n.parse().ok()?))
        })
        .collect()
}

/// Every site of the profile with its verdict, proposed ones first (by gain), then the
/// candidates by gain, then the others by name.
///
/// The choice is greedy over units (a whole function, or one call site), best gain first.
/// A read made inside a call of a chosen unit does not count: skipping that call skips the
/// read. So a unit is weighed with the units its reads happen inside (its group, closed
/// over their reads too, when they can be skipped): libtiff's warning calls are read only
/// by the next warning's or error's own output, so the loggers pay only together. A unit
/// whose callers are all skipped whole is covered by them.
pub fn rank(p: &Profile, o: &RankOptions) -> Vec<Ranked> {
    let run = &p.run;
    let mut out: Vec<Ranked> = p.functions.iter().map(|f| judge(f, run, o)).collect();
    let eligible: Vec<bool> = out.iter().map(|r| r.verdict != Verdict::Never).collect();
    let inside: Vec<Vec<(Chain, u64)>> = p
        .functions
        .iter()
        .map(|f| parse_inside(&f.read_inside))
        .collect();
    let direct: Vec<u64> = p
        .functions
        .iter()
        .zip(&inside)
        .map(|(f, ins)| f.read.saturating_sub(ins.iter().map(|(_, n)| n).sum()))
        .collect();
    let mut sites_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in p.functions.iter().enumerate() {
        sites_of.entry(f.function.as_str()).or_default().push(i);
    }
    let whole_ok = |f: &str| {
        sites_of
            .get(f)
            .is_some_and(|is| is.iter().all(|&i| eligible[i]))
    };
    let sites = |u: &Unit| -> Vec<usize> {
        match *u {
            Unit::Whole(f) => sites_of.get(f).cloned().unwrap_or_default(),
            Unit::Site(f, l) => sites_of.get(f).map_or(vec![], |is| {
                is.iter()
                    .copied()
                    .filter(|&i| p.functions[i].line == l)
                    .collect()
            }),
        }
    };
    let skipped = |c: &HashSet<Unit>, f: &str, l: u32| {
        c.contains(&Unit::Whole(f)) || c.contains(&Unit::Site(f, l))
    };
    let discounted =
        |chain: &Chain, c: &HashSet<Unit>| chain.iter().any(|&(f, l)| skipped(c, f, l));
    // Reads that still count for site i once `c` is skipped.
    let reads = |i: usize, c: &HashSet<Unit>| -> u64 {
        direct[i]
            + inside[i]
                .iter()
                .filter(|(ch, _)| !discounted(ch, c))
                .map(|(_, n)| n)
                .sum::<u64>()
    };
    // A unit's gain and read ratio with `c` skipped (a site followed too few times takes
    // its function's ratio; one with none known, all recovered).
    let weigh = |u: &Unit, c: &HashSet<Unit>| -> (f64, Option<f64>) {
        let is = sites(u);
        let all = match *u {
            Unit::Whole(f) | Unit::Site(f, _) => sites_of.get(f).cloned().unwrap_or_default(),
        };
        let (rd, w): (u64, u64) = all.iter().fold((0, 0), |(r, w), &i| {
            (r + reads(i, c), w + p.functions[i].watched)
        });
        let fallback = (w >= o.min_watched).then(|| rd as f64 / w as f64);
        let (mut g, mut urd, mut uw) = (0.0, 0, 0);
        for &i in &is {
            let f = &p.functions[i];
            let r = if f.watched >= o.min_watched {
                Some(reads(i, c) as f64 / f.watched as f64)
            } else {
                fallback
            };
            g += gain(f, run, r.unwrap_or(1.0), o);
            urd += reads(i, c);
            uw += f.watched;
        }
        (g, (uw >= o.min_watched).then(|| urd as f64 / uw as f64))
    };
    let callers_of = |u: &Unit| -> Vec<&str> {
        sites(u)
            .iter()
            .flat_map(|&i| callers(&p.functions[i]))
            .collect()
    };
    // Every call of `f` is skipped: whole, or each of its sites.
    let all_skipped = |c: &HashSet<Unit>, f: &str| {
        c.contains(&Unit::Whole(f))
            || sites_of.get(f).is_some_and(|is| {
                is.iter()
                    .all(|&i| c.contains(&Unit::Site(f, p.functions[i].line)))
            })
    };

    let mut chosen: HashSet<Unit> = HashSet::new();
    let mut why: HashMap<Unit, (f64, String)> = HashMap::new();
    let mut units = 0;
    while units < o.top {
        let mut best: Option<(f64, Vec<Unit>)> = None;
        let mut roots: Vec<Unit> = Vec::new();
        for (i, f) in p.functions.iter().enumerate() {
            if eligible[i] && !skipped(&chosen, &f.function, f.line) {
                // The whole function first: on a tie it is the simpler choice (`F`).
                let partly = sites_of[f.function.as_str()]
                    .iter()
                    .any(|&j| chosen.contains(&Unit::Site(&f.function, p.functions[j].line)));
                if whole_ok(&f.function) && !partly && !roots.contains(&Unit::Whole(&f.function)) {
                    roots.push(Unit::Whole(&f.function));
                }
                roots.push(Unit::Site(&f.function, f.line));
            }
        }
        for root in roots {
            let cs = callers_of(&root);
            if !cs.is_empty() && cs.iter().all(|c| all_skipped(&chosen, c)) {
                continue; // its calls run only inside skipped calls
            }
            let mut group = vec![root];
            let mut with: HashSet<Unit> = chosen.iter().copied().chain([root]).collect();
            // Close over the reads the group makes inside units that could be skipped: the
            // outermost call of the chain that can be, as a whole function.
            while group.len() < 8 {
                let next = group.iter().flat_map(&sites).find_map(|i| {
                    inside[i]
                        .iter()
                        .filter(|(ch, _)| !discounted(ch, &with))
                        .find_map(|(ch, _)| {
                            ch.iter()
                                .find(|(f, _)| whole_ok(f))
                                .map(|&(f, _)| Unit::Whole(f))
                        })
                });
                let Some(u) = next else { break };
                group.push(u);
                with.insert(u);
            }
            let (_, r) = weigh(&root, &with);
            if !r.is_some_and(|r| r <= o.max_read) || group.len() > o.top - units {
                continue;
            }
            let total: f64 = group.iter().map(|u| weigh(u, &with).0).sum();
            if total > 0.0 && best.as_ref().is_none_or(|(g, _)| total > *g) {
                best = Some((total, group));
            }
        }
        let Some((_, group)) = best else { break };
        let with: HashSet<Unit> = chosen
            .iter()
            .copied()
            .chain(group.iter().copied())
            .collect();
        for (k, u) in group.iter().enumerate() {
            let (g, _) = weigh(u, &with);
            let is = sites(u);
            let sum = |field: fn(&FunctionProfile) -> u64| {
                is.iter().map(|&i| field(&p.functions[i])).sum::<u64>()
            };
            let (calls, forks, watched, read) = (
                sum(|f| f.calls),
                sum(|f| f.forks),
                sum(|f| f.watched),
                sum(|f| f.read),
            );
            let still: u64 = is.iter().map(|&i| reads(i, &with)).sum();
            let per = |x: u64| x as f64 / calls.max(1) as f64;
            let mut reason = format!(
                "{}{calls} calls, {forks} forks, {:.0} instructions a call and {:.0} on the paths its forks made; \
                 effects read after {still} of {watched} followed calls",
                if matches!(u, Unit::Whole(_)) { "every call: " } else { "" },
                per(sum(|f| f.instructions)),
                per(sum(|f| f.path_instructions)),
            );
            if read > still {
                reason += &format!(" ({} more inside calls skipped with it)", read - still);
            }
            if group.len() > 1 {
                let others: Vec<String> = group
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != k)
                    .map(|(_, v)| v.name())
                    .collect();
                reason += &format!(
                    "; together with {} (reads inside their calls go with them)",
                    others.join(", ")
                );
            }
            why.insert(*u, (g, reason));
        }
        units += group.len();
        chosen = with;
    }
    for (i, f) in p.functions.iter().enumerate() {
        let r = &mut out[i];
        let unit = [Unit::Whole(&f.function), Unit::Site(&f.function, f.line)]
            .into_iter()
            .find(|u| chosen.contains(u));
        if let Some(u) = unit {
            let (g, reason) = why[&u].clone();
            r.verdict = Verdict::Skip;
            r.whole = matches!(u, Unit::Whole(_));
            r.gain = g;
            r.read_ratio =
                Some(reads(i, &chosen) as f64 / f.watched.max(1) as f64).filter(|_| f.watched > 0);
            r.reason = reason;
        } else if r.verdict == Verdict::Skip {
            r.verdict = Verdict::Candidate;
            let cs = callers(f);
            r.reason = if !cs.is_empty() && cs.iter().all(|c| all_skipped(&chosen, c)) {
                format!(
                    "its calls come from {} only, which {} skipped",
                    cs.join(", "),
                    if cs.len() == 1 { "is" } else { "are" }
                )
            } else {
                format!("{} (not among the top {})", r.reason, o.top)
            };
        }
    }
    let order = |r: &Ranked| match r.verdict {
        Verdict::Skip => 0,
        Verdict::Candidate => 1,
        Verdict::Never => 2,
    };
    out.sort_by(|a, b| {
        order(a)
            .cmp(&order(b))
            .then(b.gain.total_cmp(&a.gain))
            .then(a.function.cmp(&b.function))
            .then(a.line.cmp(&b.line))
    });
    out
}

/// One function's verdict before the top N and the callers are considered.
pub fn judge(f: &FunctionProfile, run: &RunInfo, o: &RankOptions) -> Ranked {
    let read_ratio = (f.watched > 0).then(|| f.read as f64 / f.watched as f64);
    let mk = |verdict, gain, reason: String| Ranked {
        function: f.function.clone(),
        line: f.line,
        whole: false,
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
    let costs = format!(
        "{} calls, {} forks, {:.0} instructions a call and {:.0} on the paths its forks made",
        f.calls,
        f.forks,
        f.instructions as f64 / f.calls as f64,
        f.path_instructions as f64 / f.calls as f64
    );
    if f.watched < o.min_watched {
        return mk(
            Verdict::Candidate,
            g,
            format!(
                "{} of its calls followed after returning, {} needed to predict recoveries",
                f.watched, o.min_watched
            ),
        );
    }
    let read = format!(
        "effects read after {} of {} followed calls",
        f.read, f.watched
    );
    if r > o.max_read {
        return mk(
            Verdict::Candidate,
            g,
            format!("{read}: most skips would be recovered"),
        );
    }
    if g <= 0.0 {
        return mk(
            Verdict::Candidate,
            g,
            format!("saves less than its skips cost ({costs}; {read})"),
        );
    }
    mk(Verdict::Skip, g, format!("{costs}; {read}"))
}

/// Skips a unit makes before `stop_reason` judges it.
pub const MIN_SKIPS: u64 = 8;

/// Whether a unit skipped online should run again: after `MIN_SKIPS` skips, when the gain
/// at the observed recoveries per skip is gone (a skip recovered on several forked paths
/// counts each time: the call then runs more often than it would have). The reason, if so.
pub fn stop_reason(
    f: &FunctionProfile,
    run: &RunInfo,
    skips: u64,
    recoveries: u64,
    o: &RankOptions,
) -> Option<String> {
    if skips < MIN_SKIPS {
        return None;
    }
    let r = recoveries as f64 / skips as f64;
    if gain(f, run, r, o) <= 0.0 {
        return Some(format!(
            "{recoveries} recoveries for its {skips} skipped calls"
        ));
    }
    None
}

/// `F` or `F:LINE`, as `--skip-functions` takes it.
fn site_name(function: &str, line: u32) -> String {
    if line == 0 {
        function.to_string()
    } else {
        format!("{function}:{line}")
    }
}

/// The `--skip-functions=` value for the proposed units: `F` for a function skipped whole
/// (or a site whose line is unknown), else `F:L1/L2`, in ranking order.
pub fn skip_line(ranked: &[Ranked]) -> String {
    let mut order: Vec<&str> = Vec::new();
    let mut lines: HashMap<&str, Vec<u32>> = HashMap::new();
    let mut whole: HashSet<&str> = HashSet::new();
    for r in ranked.iter().filter(|r| r.verdict == Verdict::Skip) {
        if !lines.contains_key(r.function.as_str()) {
            order.push(&r.function);
        }
        lines.entry(&r.function).or_default().push(r.line);
        if r.whole || r.line == 0 {
            whole.insert(&r.function);
        }
    }
    order
        .iter()
        .map(|f| {
            if whole.contains(f) {
                f.to_string()
            } else {
                let mut ls = lines[f].clone();
                ls.sort_unstable();
                ls.dedup();
                format!(
                    "{f}:{}",
                    ls.iter().map(u32::to_string).collect::<Vec<_>>().join("/")
                )
            }
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The ranking as `pspa skips` prints it.
pub fn render(ranked: &[Ranked], all: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:>4}  {:<36} {:<9} {:>14} {:>6}  reason",
        "rank", "call site", "verdict", "gain (instr)", "read"
    );
    for (i, r) in ranked.iter().enumerate() {
        if !all && r.verdict == Verdict::Never {
            continue;
        }
        let v = match r.verdict {
            Verdict::Skip => "skip",
            Verdict::Candidate => "candidate",
            Verdict::Never => "never",
        };
        let read = r
            .read_ratio
            .map_or("-".to_string(), |x| format!("{:.0}%", x * 100.0));
        let _ = writeln!(
            out,
            "{:>4}  {:<36} {:<9} {:>14.0} {:>6}  {}",
            i + 1,
            site_name(&r.function, r.line),
            v,
            r.gain,
            read,
            r.reason
        );
    }
    let line = skip_line(ranked);
    if line.is_empty() {
        let _ = writeln!(
            out,
            "\nnothing to skip: no call site's profile shows skipping it pays"
        );
    } else {
        let _ = writeln!(out, "\n--skip-functions={line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str) -> FunctionProfile {
        FunctionProfile {
            function: name.into(),
            ..Default::default()
        }
    }
    const RUN: RunInfo = RunInfo {
        instructions: 1_000_000,
        wall_s: 1.0,
    };

    /// A forking parser whose effects are never read outranks a cheap helper, and the
    /// helper called only from it is covered.
    #[test]
    fn forks_never_read_are_proposed_and_helpers_inside_them_are_covered() {
        // parse: 10 calls, 100k instructions inside and 900k on its forks' paths, watched 10
        // times, read never: gain = 10 * (1 * 100k - 0 - 2k) = 980k.
        let parse = FunctionProfile {
            calls: 10,
            instructions: 100_000,
            forks: 40,
            path_instructions: 900_000,
            watched: 10,
            unread: 10,
            callers: "main:10".into(),
            ..row("parse")
        };
        // lex: called only from parse; also forks and never read.
        let lex = FunctionProfile {
            calls: 50,
            instructions: 80_000,
            forks: 30,
            path_instructions: 500_000,
            watched: 50,
            unread: 50,
            callers: "parse:50".into(),
            ..row("lex")
        };
        // log: cheap, no forks: 100 calls of 50 instructions cost 2k each to skip.
        let log = FunctionProfile {
            calls: 100,
            instructions: 5_000,
            watched: 100,
            unread: 100,
            callers: "main:100".into(),
            ..row("log")
        };
        let p = Profile {
            run: RUN,
            functions: vec![log, lex, parse],
        };
        let r = rank(&p, &RankOptions::default());
        assert_eq!(r[0].function, "parse");
        assert_eq!(r[0].verdict, Verdict::Skip);
        let lex = r.iter().find(|x| x.function == "lex").unwrap();
        assert_eq!(lex.verdict, Verdict::Candidate, "{lex:?}");
        assert!(lex.reason.contains("come from parse"));
        let log = r.iter().find(|x| x.function == "log").unwrap();
        assert_eq!(log.verdict, Verdict::Candidate);
        assert!(
            log.gain < 0.0 && log.reason.contains("saves less"),
            "{log:?}"
        );
        assert!(render(&r, false).contains("--skip-functions=parse\n"));
    }

    /// A function whose effects are read after most calls, or whose result is used, is not
    /// proposed, however much it forks.
    #[test]
    fn read_effects_and_used_results_are_not_proposed() {
        let init = FunctionProfile {
            calls: 20,
            instructions: 50_000,
            forks: 20,
            path_instructions: 400_000,
            watched: 20,
            read: 18,
            ..row("init")
        };
        let get = FunctionProfile {
            calls: 20,
            result_used: 20,
            instructions: 50_000,
            forks: 20,
            path_instructions: 400_000,
            ..row("get")
        };
        let main = FunctionProfile {
            calls: 1,
            instructions: 1_000_000,
            forks: 60,
            watched: 1,
            unread: 1,
            ..row("main")
        };
        let noret = FunctionProfile {
            calls: 3,
            excluded: "it does not return".into(),
            ..row("fatal")
        };
        let p = Profile {
            run: RUN,
            functions: vec![init, get, main, noret],
        };
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
        let f = FunctionProfile {
            calls: 10,
            instructions: 10_000,
            path_instructions: 30_000,
            analysed: 9,
            analysis_s: 0.005,
            warm_analyses: 5,
            ..row("f")
        };
        let o = RankOptions::default();
        // 1 ms of analysis per analysed call = 1,000 instructions at 1M/s.
        assert_eq!(
            gain(&f, &RUN, 0.0, &o),
            10.0 * (4_000.0 - 1_000.0 - 2_000.0)
        );
        assert_eq!(gain(&f, &RUN, 1.0, &o), -10.0 * 3_000.0);
        assert!(
            stop_reason(&f, &RUN, 7, 7, &o).is_none(),
            "too few skips to judge"
        );
        assert!(stop_reason(&f, &RUN, 10, 6, &o).is_some());
        assert!(stop_reason(&f, &RUN, 10, 0, &o).is_none());
    }

    /// Chopping analyses a skip only when its path touches an object older than the call:
    /// of 8 followed calls, 2 did, so a quarter of the analysis time is charged. A driver's
    /// last call (nothing touched after) costs no analysis however long its analysis takes.
    #[test]
    fn analysis_is_charged_for_the_skips_that_would_be_analysed() {
        let f = FunctionProfile {
            calls: 10,
            instructions: 10_000,
            path_instructions: 30_000,
            analysis_s: 0.020, // 4 ms an analysis: 4,000 instructions at 1M/s
            warm_analyses: 5,
            watched: 8,
            unread: 8,
            analysis_needed: Some(2),
            ..row("f")
        };
        let o = RankOptions::default();
        assert_eq!(
            gain(&f, &RUN, 0.0, &o),
            10.0 * (4_000.0 - 4_000.0 * 0.25 - 2_000.0)
        );
        let untouched = FunctionProfile {
            analysis_needed: Some(0),
            ..f.clone()
        };
        assert_eq!(gain(&untouched, &RUN, 0.0, &o), 10.0 * (4_000.0 - 2_000.0));
        // an older profile, without the column: every skip is charged
        let old = FunctionProfile {
            analysis_needed: None,
            ..f
        };
        assert_eq!(
            gain(&old, &RUN, 0.0, &o),
            10.0 * (4_000.0 - 4_000.0 - 2_000.0)
        );
    }

    /// Only the top N are proposed.
    #[test]
    fn top_n_bounds_the_proposal() {
        let fs = (0..4)
            .map(|i| FunctionProfile {
                calls: 1,
                instructions: 10_000 * (i + 1),
                watched: 3,
                unread: 3,
                callers: "main:1".into(),
                ..row(&format!("f{i}"))
            })
            .collect();
        let r = rank(
            &Profile {
                run: RUN,
                functions: fs,
            },
            &RankOptions {
                top: 2,
                ..Default::default()
            },
        );
        let skip: Vec<_> = r
            .iter()
            .filter(|x| x.verdict == Verdict::Skip)
            .map(|x| x.function.as_str())
            .collect();
        assert_eq!(skip, ["f3", "f2"]);
        assert!(r[2].reason.contains("not among the top 2"), "{r:?}");
    }

    /// One function read right after its calls from one place and never from another:
    /// only the second site is proposed, as F:LINE.
    #[test]
    fn sites_of_one_function_are_judged_apart() {
        let inner = FunctionProfile {
            line: 1345,
            calls: 20,
            instructions: 1_000_000,
            watched: 20,
            read: 20,
            callers: "decode:20".into(),
            ..row("del")
        };
        let outer = FunctionProfile {
            line: 28,
            calls: 20,
            instructions: 1_000_000,
            watched: 20,
            unread: 20,
            callers: "main:20".into(),
            ..row("del")
        };
        let r = rank(
            &Profile {
                run: RUN,
                functions: vec![inner, outer],
            },
            &RankOptions::default(),
        );
        assert_eq!((r[0].line, r[0].verdict), (28, Verdict::Skip));
        assert_eq!((r[1].line, r[1].verdict), (1345, Verdict::Candidate));
        assert_eq!(skip_line(&r), "del:28");
        // Read 19 of 20 times there, the inner site still saves a little: the whole
        // function is then worth more than the outer site alone.
        let mut p2 = Profile {
            run: RUN,
            functions: vec![],
        };
        for (line, read, unread) in [(1345, 19, 1), (28, 0, 20)] {
            p2.functions.push(FunctionProfile {
                line,
                calls: 20,
                instructions: 1_000_000,
                watched: 20,
                read,
                unread,
                callers: "main:20".into(),
                ..row("del")
            });
        }
        assert_eq!(skip_line(&rank(&p2, &RankOptions::default())), "del");
        assert!(render(&r, false).contains("del:1345"));
    }

    /// Two loggers whose writes only the other's output reads: neither pays alone, both
    /// together (libtiff's TIFFWarningExtR and TIFFErrorExtR).
    #[test]
    fn units_read_only_inside_each_other_are_skipped_together() {
        let warn = FunctionProfile {
            line: 10,
            calls: 30,
            instructions: 300_000,
            watched: 30,
            read: 30,
            read_inside: "parse:5>err:7x30".into(),
            callers: "parse:30".into(),
            ..row("warn")
        };
        let err = FunctionProfile {
            line: 7,
            calls: 30,
            instructions: 300_000,
            watched: 30,
            read: 25,
            unread: 5,
            read_inside: "warn:10x25".into(),
            callers: "parse:30".into(),
            ..row("err")
        };
        // parse's result is used: it is no unit, so the chain's outermost skippable call is err.
        let parse = FunctionProfile {
            line: 5,
            calls: 30,
            result_used: 30,
            ..row("parse")
        };
        let p = Profile {
            run: RUN,
            functions: vec![warn, err, parse],
        };
        for f in &p.functions[..2] {
            assert_eq!(
                judge(f, &p.run, &RankOptions::default()).verdict,
                Verdict::Candidate,
                "alone: read too often"
            );
        }
        let r = rank(&p, &RankOptions::default());
        assert_eq!(skip_line(&r), "err,warn", "{r:?}");
        assert!(r[0].reason.contains("together with"), "{r:?}");
        // One unit allowed: the pair does not fit, and neither pays alone.
        let r = rank(
            &p,
            &RankOptions {
                top: 1,
                ..Default::default()
            },
        );
        assert_eq!(skip_line(&r), "");
    }

    #[test]
    fn profiles_round_trip_and_bad_ones_name_the_problem() {
        let p = Profile {
            run: RUN,
            functions: vec![FunctionProfile {
                calls: 3,
                callers: "a:1 b:2".into(),
                excluded: "x, y".into(),
                read_after_mean: 1.5,
                ..row("f")
            }],
        };
        assert_eq!(Profile::parse(&p.to_csv()).unwrap(), p);
        let e = Profile::parse("function,calls\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 1"), "{e:#}");
        let bad = p.to_csv().replace(",3,", ",three,");
        let e = Profile::parse(&bad).unwrap_err();
        assert!(format!("{e:#}").contains("line 3: field 3"), "{e:#}");
    }
}
