//! `pspa compare`: two `pspa.analysis/1` documents side by side (pspa against SVF, or two
//! configurations of pspa): per function and per pointer, the facts only one side has,
//! and set-size statistics.
//!
//! Labels are compared as they are, with one rule for field-insensitive objects: `X.*`
//! on one side covers any `X.N` on the other, and the other way round, because a side that
//! did not tell fields apart makes no claim about which field. `--objects` compares at object
//! granularity (the field suffix dropped).

use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::rc::Rc;

/// A NODE label, shared: a whole-program document repeats a few hundred thousand labels
/// tens of millions of times (SQLite: 7 GB as separate strings).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Label(Rc<str>);

impl std::ops::Deref for Label {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

thread_local! {
    static LABELS: std::cell::RefCell<rustc_hash::FxHashSet<Rc<str>>> = Default::default();
}

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Label, D::Error> {
        let s = std::borrow::Cow::<str>::deserialize(d)?;
        Ok(LABELS.with(|t| {
            let mut t = t.borrow_mut();
            if let Some(l) = t.get(&*s) {
                return Label(l.clone());
            }
            let l: Rc<str> = Rc::from(&*s);
            t.insert(l.clone());
            Label(l)
        }))
    }
}

#[derive(Deserialize)]
struct Sets {
    #[serde(rename = "mod", default)]
    modset: Vec<Label>,
    #[serde(rename = "ref", default)]
    refset: Vec<Label>,
}

/// The part of a `pspa.analysis/1` document that is compared; other keys are skipped
/// without being kept (a whole-program `memory` map can be gigabytes).
#[derive(Deserialize)]
pub struct Doc {
    schema: String,
    #[serde(default)]
    functions: BTreeMap<String, Sets>,
    #[serde(default)]
    pointers: BTreeMap<String, Vec<Label>>,
}

impl Doc {
    pub fn parse(text: &str) -> anyhow::Result<Doc> {
        Ok(serde_json::from_str(text)?)
    }

    pub fn load(path: &Path) -> anyhow::Result<Doc> {
        let f = std::fs::File::open(path)
            .map_err(|e| anyhow::anyhow!("{}: cannot open: {}", path.display(), e))?;
        let d: Doc = serde_json::from_reader(std::io::BufReader::new(f)).map_err(|e| {
            anyhow::anyhow!("{}: not a pspa.analysis/1 document: {}", path.display(), e)
        })?;
        if d.schema != "pspa.analysis/1" {
            anyhow::bail!(
                "{}: schema is `{}`, expected pspa.analysis/1",
                path.display(),
                d.schema
            );
        }
        Ok(d)
    }
}

/// Split `X.N` / `X.*` into the object and its field part.
fn object(label: &str) -> (&str, &str) {
    match crate::site::split_location(label) {
        Some((o, f)) if !o.is_empty() => (o, f),
        _ => (label, ""),
    }
}

/// One side's set, indexed for the covering rule.
struct Indexed<'a> {
    exact: BTreeSet<&'a str>,
    /// Objects with a `.*` fact, and objects with any fact at all.
    whole: BTreeSet<&'a str>,
    any: BTreeSet<&'a str>,
}

impl<'a> Indexed<'a> {
    fn new(set: &'a [Label], objects: bool) -> Indexed<'a> {
        let mut ix = Indexed {
            exact: BTreeSet::new(),
            whole: BTreeSet::new(),
            any: BTreeSet::new(),
        };
        for l in set {
            let (o, f) = object(l);
            ix.any.insert(o);
            if f == "*" {
                ix.whole.insert(o);
            }
            ix.exact.insert(if objects { o } else { &**l });
        }
        ix
    }

    fn covers(&self, label: &str, objects: bool) -> bool {
        let (o, f) = object(label);
        if objects {
            return self.any.contains(o);
        }
        self.exact.contains(label) || self.whole.contains(o) || (f == "*" && self.any.contains(o))
    }

    fn len(&self) -> usize {
        self.exact.len()
    }
}

/// Facts of one kind (pointers, mod or ref) compared over the keys of both sides.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct KindDiff {
    /// Keys on both sides, on A only, on B only.
    pub common: usize,
    pub keys_only_a: usize,
    pub keys_only_b: usize,
    /// Over the common keys: facts of A that B does not cover, and the reverse.
    pub facts_only_a: usize,
    pub facts_only_b: usize,
    /// Common keys whose sets are equal (under the covering rule both ways).
    pub equal: usize,
    pub avg_a: f64,
    pub avg_b: f64,
    pub max_a: usize,
    pub max_b: usize,
    /// Facts on one side only, by the kind of object (`global`, `stack`, `heap`, `func`,
    /// `svf` for SVF objects without a pspa label): where the differences come from.
    pub only_a_by_kind: BTreeMap<String, usize>,
    pub only_b_by_kind: BTreeMap<String, usize>,
    /// The common keys with the most facts of B that A lacks: (key, count, a few examples).
    pub worst_b: Vec<(String, usize, Vec<String>)>,
    pub worst_a: Vec<(String, usize, Vec<String>)>,
}

/// How to compare: field or object granularity, how many keys to list, and which kind of
/// object the listed keys are ranked by (all kinds when None).
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub objects: bool,
    pub show: usize,
    pub kind: Option<String>,
}

fn diff<'a>(
    a: impl Iterator<Item = (&'a String, &'a [Label])>,
    b: &BTreeMap<&'a String, &'a [Label]>,
    opts: &Options,
) -> KindDiff {
    let objects = opts.objects;
    let of_kind = |l: &&Label| {
        opts.kind
            .as_deref()
            .is_none_or(|k| crate::site::kind_name(l) == k)
    };
    let mut d = KindDiff::default();
    let a: BTreeMap<&String, &[Label]> = a.collect();
    d.keys_only_a = a.keys().filter(|k| !b.contains_key(*k)).count();
    d.keys_only_b = b.keys().filter(|k| !a.contains_key(*k)).count();
    let (mut sa, mut sb) = (0usize, 0usize);
    let mut worst_a = Vec::new();
    let mut worst_b = Vec::new();
    for (k, va) in &a {
        let Some(vb) = b.get(*k) else { continue };
        d.common += 1;
        let (ia, ib) = (Indexed::new(va, objects), Indexed::new(vb, objects));
        let only_a: Vec<&Label> = va.iter().filter(|l| !ib.covers(l, objects)).collect();
        let only_b: Vec<&Label> = vb.iter().filter(|l| !ia.covers(l, objects)).collect();
        // In object mode, count objects rather than field facts.
        let count = |v: &[&Label]| {
            if objects {
                v.iter().map(|l| object(l).0).collect::<BTreeSet<_>>().len()
            } else {
                v.len()
            }
        };
        let (na, nb) = (count(&only_a), count(&only_b));
        for (v, m) in [
            (&only_a, &mut d.only_a_by_kind),
            (&only_b, &mut d.only_b_by_kind),
        ] {
            for l in v.iter() {
                *m.entry(crate::site::kind_name(l).to_string()).or_default() += 1;
            }
        }
        d.facts_only_a += na;
        d.facts_only_b += nb;
        if na == 0 && nb == 0 {
            d.equal += 1;
        }
        for (v, w) in [(&only_a, &mut worst_a), (&only_b, &mut worst_b)] {
            let listed: Vec<&Label> = v.iter().copied().filter(of_kind).collect();
            if !listed.is_empty() {
                w.push((
                    (*k).clone(),
                    listed.len(),
                    listed
                        .iter()
                        .take(4)
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>(),
                ));
            }
        }
        sa += ia.len();
        sb += ib.len();
        d.max_a = d.max_a.max(ia.len());
        d.max_b = d.max_b.max(ib.len());
    }
    if d.common > 0 {
        d.avg_a = sa as f64 / d.common as f64;
        d.avg_b = sb as f64 / d.common as f64;
    }
    for w in [&mut worst_a, &mut worst_b] {
        w.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
        w.truncate(opts.show);
    }
    d.worst_a = worst_a;
    d.worst_b = worst_b;
    d
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    pub pointers: KindDiff,
    #[serde(rename = "mod")]
    pub modset: KindDiff,
    #[serde(rename = "ref")]
    pub refset: KindDiff,
}

impl Comparison {
    /// Whether every fact of B is covered by A (B ⊆ A): what `--require-subset` checks.
    pub fn b_subset_of_a(&self) -> bool {
        self.pointers.facts_only_b == 0
            && self.modset.facts_only_b == 0
            && self.refset.facts_only_b == 0
    }
}

pub fn compare(a: &Doc, b: &Doc, opts: &Options) -> Comparison {
    let ptr_b: BTreeMap<&String, &[Label]> =
        b.pointers.iter().map(|(k, v)| (k, v.as_slice())).collect();
    let mod_b: BTreeMap<&String, &[Label]> = b
        .functions
        .iter()
        .map(|(k, v)| (k, v.modset.as_slice()))
        .collect();
    let ref_b: BTreeMap<&String, &[Label]> = b
        .functions
        .iter()
        .map(|(k, v)| (k, v.refset.as_slice()))
        .collect();
    Comparison {
        pointers: diff(
            a.pointers.iter().map(|(k, v)| (k, v.as_slice())),
            &ptr_b,
            opts,
        ),
        modset: diff(
            a.functions.iter().map(|(k, v)| (k, v.modset.as_slice())),
            &mod_b,
            opts,
        ),
        refset: diff(
            a.functions.iter().map(|(k, v)| (k, v.refset.as_slice())),
            &ref_b,
            opts,
        ),
    }
}

/// Every fact of B that A does not cover, as (kind, key, label), kind being `pointers`,
/// `mod` or `ref`; keys present on one side only are not compared.
pub fn facts_only_in_b(a: &Doc, b: &Doc, objects: bool) -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    let mut one = |kind: &'static str, k: &String, va: &[Label], vb: &[Label]| {
        let ia = Indexed::new(va, objects);
        for l in vb.iter().filter(|l| !ia.covers(l, objects)) {
            out.push((kind, k.clone(), l.to_string()));
        }
    };
    for (k, vb) in &b.pointers {
        if let Some(va) = a.pointers.get(k) {
            one("pointers", k, va, vb);
        }
    }
    for (k, fb) in &b.functions {
        if let Some(fa) = a.functions.get(k) {
            one("mod", k, &fa.modset, &fb.modset);
            one("ref", k, &fa.refset, &fb.refset);
        }
    }
    out
}

pub fn text(c: &Comparison, a: &str, b: &str) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    let _ = writeln!(o, "A = {a}\nB = {b}\n");
    let _ = writeln!(
        o,
        "{:<9} {:>7} {:>7} {:>7} {:>7} {:>10} {:>10} {:>9} {:>9} {:>7} {:>7}",
        "kind",
        "common",
        "only A",
        "only B",
        "equal",
        "facts A-B",
        "facts B-A",
        "avg A",
        "avg B",
        "max A",
        "max B"
    );
    for (name, d) in [
        ("pointers", &c.pointers),
        ("mod", &c.modset),
        ("ref", &c.refset),
    ] {
        let _ = writeln!(
            o,
            "{:<9} {:>7} {:>7} {:>7} {:>7} {:>10} {:>10} {:>9.2} {:>9.2} {:>7} {:>7}",
            name,
            d.common,
            d.keys_only_a,
            d.keys_only_b,
            d.equal,
            d.facts_only_a,
            d.facts_only_b,
            d.avg_a,
            d.avg_b,
            d.max_a,
            d.max_b
        );
    }
    for (name, d) in [
        ("pointers", &c.pointers),
        ("mod", &c.modset),
        ("ref", &c.refset),
    ] {
        let kinds = |m: &BTreeMap<String, usize>| {
            m.iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if !d.only_b_by_kind.is_empty() {
            let _ = writeln!(
                o,
                "only in B, {name}, by kind of object: {}",
                kinds(&d.only_b_by_kind)
            );
        }
        if !d.only_a_by_kind.is_empty() {
            let _ = writeln!(
                o,
                "only in A, {name}, by kind of object: {}",
                kinds(&d.only_a_by_kind)
            );
        }
    }
    for (name, d) in [
        ("pointers", &c.pointers),
        ("mod", &c.modset),
        ("ref", &c.refset),
    ] {
        for (k, n, ex) in &d.worst_b {
            let _ = writeln!(o, "only in B: {name} {k}: {n} (e.g. {})", ex.join(" "));
        }
        for (k, n, ex) in &d.worst_a {
            let _ = writeln!(o, "only in A: {name} {k}: {n} (e.g. {})", ex.join(" "));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &[&str]) -> Vec<Label> {
        s.iter().map(|x| Label(Rc::from(*x))).collect()
    }

    #[test]
    fn field_insensitive_facts_cover_fields_both_ways() {
        // A says p -> X.* (did not tell fields apart); B says p -> X.2: neither lacks a fact.
        let a = v(&["heap:f:3.*"]);
        let b = v(&["heap:f:3.2", "global:g.0"]);
        let (ia, ib) = (Indexed::new(&a, false), Indexed::new(&b, false));
        assert!(ia.covers("heap:f:3.2", false));
        assert!(ib.covers("heap:f:3.*", false));
        // global:g.0 is B's alone.
        assert!(!ia.covers("global:g.0", false));
        // Distinct fields of a field-sensitive object are distinct facts.
        let c = v(&["heap:f:3.1"]);
        assert!(!Indexed::new(&c, false).covers("heap:f:3.2", false));
        assert!(Indexed::new(&c, true).covers("heap:f:3.2", true));
    }

    #[test]
    fn equal_labels_are_shared() {
        // Two documents naming the same object share one string.
        let a: Vec<Label> = serde_json::from_str(r#"["heap:f:3.1", "global:g.0"]"#).unwrap();
        let b: Vec<Label> = serde_json::from_str(r#"["global:g.0"]"#).unwrap();
        assert!(Rc::ptr_eq(&a[1].0, &b[0].0));
        assert_eq!(&*a[0], "heap:f:3.1");
    }

    #[test]
    fn labels_split_at_the_last_dot() {
        // String literals have dots in their names: global:.str.1 field 0.
        assert_eq!(object("global:.str.1.0"), ("global:.str.1", "0"));
        assert_eq!(object("func:main.*"), ("func:main", "*"));
    }
}
