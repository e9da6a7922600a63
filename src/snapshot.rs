//! Recorded state snapshots (`pspa.snapshot/1`): a symbolic state at a call site, written
//! by the KLEE plugin (`--pspa-dump-snapshots`) or by hand, replayed by `pspa modref`.
//! The format is documented in docs/snapshot.md.

use crate::state::{PointerSlot, StateObjId, StateObject, SymbolicState, Target};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const SCHEMA: &str = "pspa.snapshot/1";

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub schema: String,
    /// The program, relative to the snapshot file or absolute.
    pub module: String,
    /// Snapshots with the same path name belong to one execution path, in file order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    pub call: Call,
    #[serde(default)]
    pub globals: BTreeMap<String, StateObjId>,
    #[serde(default)]
    pub objects: Vec<SnapObject>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Call {
    pub function: String,
    #[serde(default)]
    pub args: Vec<Arg>,
    /// The call is skipped (chopped execution): its effects are missing from later
    /// snapshots of the same path, so its post-state is merged into theirs.
    #[serde(default)]
    pub skipped: bool,
    /// Source line of the call, for reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// Deserialized by hand (`Arg::from_json`), so that a bad one is named with its value.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Arg {
    Targets { targets: Vec<SnapTarget> },
    Value { value: String },
}

/// Deserialized by hand (`SnapTarget::from_json`), so that a bad one is named with its
/// value.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum SnapTarget {
    Object {
        object: StateObjId,
        offset: Option<u64>,
    },
    Function {
        function: String,
    },
    Null {
        null: bool,
    },
    /// A value that may point anywhere (`Target::Unknown`).
    Unknown {
        unknown: bool,
    },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapObject {
    pub id: StateObjId,
    /// Shared: every read of the object gives the state's object this site, uncopied.
    pub site: Arc<str>,
    pub size: u64,
    #[serde(rename = "type", default)]
    pub ty: Option<Arc<str>>,
    /// Where `type` starts: past an allocator's header (`ObjType::After`); 0 by default.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub type_offset: u64,
    #[serde(default)]
    pub pointers: Vec<SnapSlot>,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SnapSlot {
    pub offset: u64,
    pub targets: Vec<SnapTarget>,
}

/// A loaded, validated snapshot.
#[derive(Clone, Debug)]
pub struct LoadedSnapshot {
    pub file: PathBuf,
    pub snap: Snapshot,
    /// The module path, resolved against the snapshot's directory.
    pub module_path: PathBuf,
    index: HashMap<StateObjId, usize>,
}

/// The forms of a TARGET and an ARG (docs/snapshot.md), for messages.
const TARGET_FORMS: &str = r#"{"object": ID, "offset": BYTES or null}, {"function": "NAME"}, {"null": true} or {"unknown": true}"#;
const ARG_FORMS: &str = r#"{"targets": [TARGET, ...]} or {"value": ...}"#;

/// A JSON value as a message quotes it: compact, and cut when long.
fn quote(v: &serde_json::Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("`{}...`", &s[..i]),
        None => format!("`{s}`"),
    }
}

impl SnapTarget {
    /// A TARGET from its JSON; the error quotes the value.
    pub fn from_json(v: &serde_json::Value) -> std::result::Result<SnapTarget, String> {
        let not = || {
            format!(
                "{} is not a pointer target (expected {TARGET_FORMS})",
                quote(v)
            )
        };
        let Some(m) = v.as_object() else {
            return Err(not());
        };
        let only = |allowed: &[&str]| -> std::result::Result<(), String> {
            match m.keys().find(|k| !allowed.contains(&k.as_str())) {
                Some(k) => Err(format!(
                    "{}: unknown key `{k}` in a target (expected {TARGET_FORMS})",
                    quote(v)
                )),
                None => Ok(()),
            }
        };
        if let Some(o) = m.get("object") {
            only(&["object", "offset"])?;
            let object = o.as_u64().ok_or_else(|| {
                format!(
                    "{}: `object` must be an object id (an integer >= 0)",
                    quote(v)
                )
            })?;
            let offset = match m.get("offset") {
                None | Some(serde_json::Value::Null) => None,
                Some(off) => Some(off.as_u64().ok_or_else(|| {
                    format!(
                        "{}: `offset` must be a byte offset (an integer >= 0) or null",
                        quote(v)
                    )
                })?),
            };
            return Ok(SnapTarget::Object { object, offset });
        }
        if let Some(f) = m.get("function") {
            only(&["function"])?;
            let function = f
                .as_str()
                .ok_or_else(|| format!("{}: `function` must be a function's name", quote(v)))?;
            return Ok(SnapTarget::Function {
                function: function.to_string(),
            });
        }
        for key in ["null", "unknown"] {
            if let Some(b) = m.get(key) {
                only(&[key])?;
                if b != &serde_json::Value::Bool(true) {
                    return Err(format!("{}: `{key}` must be true", quote(v)));
                }
                return Ok(if key == "null" {
                    SnapTarget::Null { null: true }
                } else {
                    SnapTarget::Unknown { unknown: true }
                });
            }
        }
        Err(not())
    }
}

impl Arg {
    /// An ARG from its JSON; the error quotes the value.
    pub fn from_json(v: &serde_json::Value) -> std::result::Result<Arg, String> {
        let not = || format!("{} is not an argument (expected {ARG_FORMS})", quote(v));
        let Some(m) = v.as_object() else {
            return Err(not());
        };
        if m.len() != 1 {
            return Err(not());
        }
        if let Some(ts) = m.get("targets") {
            let ts = ts
                .as_array()
                .ok_or_else(|| format!("{}: `targets` must be a list of targets", quote(v)))?;
            let targets = ts
                .iter()
                .enumerate()
                .map(|(j, t)| SnapTarget::from_json(t).map_err(|e| format!("target {j}: {e}")))
                .collect::<std::result::Result<_, _>>()?;
            return Ok(Arg::Targets { targets });
        }
        if let Some(x) = m.get("value") {
            // What a non-pointer argument holds is not read: any value describes it.
            let value = match x {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            return Ok(Arg::Value { value });
        }
        Err(not())
    }
}

impl<'de> Deserialize<'de> for SnapTarget {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        SnapTarget::from_json(&v).map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for Arg {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Arg::from_json(&v).map_err(serde::de::Error::custom)
    }
}

/// Where in a snapshot document a parse error is, in the words of docs/snapshot.md:
/// `object 7, pointer at offset 8, target 0` rather than `objects[3].pointers[0].targets[0]`.
fn place(doc: &serde_json::Value, path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let segs: Vec<&Segment> = path.iter().collect();
    let mut out: Vec<String> = Vec::new();
    let mut at = doc;
    let mut i = 0;
    while i < segs.len() {
        match (segs[i], segs.get(i + 1)) {
            (Segment::Map { key }, Some(Segment::Seq { index })) if key == "objects" => {
                at = &at[key.as_str()][*index];
                out.push(match at.get("id") {
                    Some(id) => format!("object {id}"),
                    None => format!("objects[{index}] (no `id`)"),
                });
                i += 2;
            }
            (Segment::Map { key }, Some(Segment::Seq { index })) if key == "pointers" => {
                at = &at[key.as_str()][*index];
                out.push(match at.get("offset") {
                    Some(off) => format!("pointer at offset {off}"),
                    None => format!("pointers[{index}]"),
                });
                i += 2;
            }
            (Segment::Map { key }, Some(Segment::Seq { index })) if key == "targets" => {
                out.push(format!("target {index}"));
                i += 2;
            }
            (Segment::Map { key }, Some(Segment::Seq { index })) if key == "args" => {
                out.push(format!("argument {index}"));
                i += 2;
            }
            (Segment::Map { key }, Some(Segment::Map { key: g })) if key == "globals" => {
                out.push(format!("global `{g}`"));
                i += 2;
            }
            (Segment::Map { key }, _) => {
                at = &at[key.as_str()];
                out.push(if key == "call" {
                    key.clone()
                } else {
                    format!("`{key}`")
                });
                i += 1;
            }
            (s, _) => {
                out.push(s.to_string());
                i += 1;
            }
        }
    }
    out.join(", ")
}

impl SnapTarget {
    fn to_target(&self) -> Target {
        match self {
            SnapTarget::Object { object, offset } => Target::Object {
                id: *object,
                offset: *offset,
            },
            SnapTarget::Function { function } => Target::Function(function.as_str().into()),
            SnapTarget::Null { .. } => Target::Null,
            SnapTarget::Unknown { .. } => Target::Unknown,
        }
    }

    pub fn from_target(t: &Target) -> SnapTarget {
        match t {
            Target::Object { id, offset } => SnapTarget::Object {
                object: *id,
                offset: *offset,
            },
            Target::Function(f) => SnapTarget::Function {
                function: f.to_string(),
            },
            Target::Null => SnapTarget::Null { null: true },
            Target::Unknown => SnapTarget::Unknown { unknown: true },
        }
    }
}

impl LoadedSnapshot {
    /// Read and check a snapshot file. Errors name the file and the problem.
    pub fn load(file: &Path) -> Result<LoadedSnapshot> {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("{}: cannot read snapshot", file.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| anyhow!("{}: not JSON: {}", file.display(), e))?;
        match v.get("schema").and_then(|s| s.as_str()) {
            Some(SCHEMA) => {}
            Some(other) => bail!(
                "{}: unsupported schema `{}` (expected `{}`)",
                file.display(),
                other,
                SCHEMA
            ),
            None => bail!(
                "{}: no `schema` field (expected `{}`)",
                file.display(),
                SCHEMA
            ),
        }
        let snap: Snapshot = serde_path_to_error::deserialize(&v).map_err(|e| {
            let at = place(&v, e.path());
            let at = if at.is_empty() {
                String::new()
            } else {
                format!("{at}: ")
            };
            anyhow!(
                "{}: malformed snapshot: {}{}",
                file.display(),
                at,
                e.inner()
            )
        })?;
        let module_path = {
            let p = Path::new(&snap.module);
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                file.parent().unwrap_or(Path::new(".")).join(p)
            }
        };
        LoadedSnapshot::new(file.to_path_buf(), snap, module_path)
    }

    /// Check a snapshot built in memory (the KLEE plugin, tests).
    pub fn new(file: PathBuf, snap: Snapshot, module_path: PathBuf) -> Result<LoadedSnapshot> {
        let mut index = HashMap::new();
        for (i, o) in snap.objects.iter().enumerate() {
            if index.insert(o.id, i).is_some() {
                bail!("{}: object id {} appears twice", file.display(), o.id);
            }
            if !crate::site::is_site(&o.site) {
                bail!(
                    "{}: object {}: site `{}` is not a global:, stack:, heap: or func: label",
                    file.display(),
                    o.id,
                    o.site
                );
            }
        }
        let check = |t: &SnapTarget, what: &str| -> Result<()> {
            match t {
                SnapTarget::Object { object, offset } => {
                    let Some(&i) = index.get(object) else {
                        bail!(
                            "{}: {}: dangling object id {}",
                            file.display(),
                            what,
                            object
                        );
                    };
                    if let Some(off) = offset {
                        let size = snap.objects[i].size;
                        // One past the end is a valid C pointer; further is not.
                        if *off > size {
                            bail!(
                                "{}: {}: offset {} is past the end of object {} (size {})",
                                file.display(),
                                what,
                                off,
                                object,
                                size
                            );
                        }
                    }
                }
                SnapTarget::Null { null: false } => {
                    bail!("{}: {}: `null` must be true", file.display(), what)
                }
                SnapTarget::Unknown { unknown: false } => {
                    bail!("{}: {}: `unknown` must be true", file.display(), what)
                }
                _ => {}
            }
            Ok(())
        };
        for (k, a) in snap.call.args.iter().enumerate() {
            if let Arg::Targets { targets } = a {
                for t in targets {
                    check(t, &format!("argument {}", k))?;
                }
            }
        }
        for (g, id) in &snap.globals {
            if !index.contains_key(id) {
                bail!(
                    "{}: global `{}`: dangling object id {}",
                    file.display(),
                    g,
                    id
                );
            }
        }
        for o in &snap.objects {
            if o.type_offset > 0 && (o.ty.is_none() || o.type_offset >= o.size) {
                bail!(
                    "{}: object {}: type_offset {} {}",
                    file.display(),
                    o.id,
                    o.type_offset,
                    if o.ty.is_none() {
                        "without a type".to_string()
                    } else {
                        format!("is not inside the object (size {})", o.size)
                    }
                );
            }
            let mut offsets = std::collections::HashSet::new();
            for s in &o.pointers {
                // Two lists of targets for one field: which one holds?
                if !offsets.insert(s.offset) {
                    bail!(
                        "{}: object {}: pointer field at offset {} is listed twice",
                        file.display(),
                        o.id,
                        s.offset
                    );
                }
                if s.offset >= o.size.max(1) {
                    bail!(
                        "{}: object {}: pointer at offset {} is outside the object (size {})",
                        file.display(),
                        o.id,
                        s.offset,
                        o.size
                    );
                }
                for t in &s.targets {
                    check(t, &format!("object {} offset {}", o.id, s.offset))?;
                }
            }
        }
        // One shared site (and type name) per distinct text: serde gives each object its
        // own copy, and 40,000 list cells' separate counters were a cache miss per read.
        let mut snap = snap;
        let mut shared: rustc_hash::FxHashSet<Arc<str>> = Default::default();
        let mut intern = |s: &mut Arc<str>| match shared.get(s) {
            Some(x) => *s = x.clone(),
            None => {
                shared.insert(s.clone());
            }
        };
        for o in &mut snap.objects {
            intern(&mut o.site);
            if let Some(t) = &mut o.ty {
                intern(t);
            }
        }
        Ok(LoadedSnapshot {
            file,
            snap,
            module_path,
            index,
        })
    }

    pub fn name(&self) -> String {
        self.file.display().to_string()
    }

    /// Check the snapshot against its program (what `new` cannot: it has no module), with
    /// `pointer_bytes` the module's pointer size. A state KLEE records passes by
    /// construction; a hand-written or damaged one that fails would be analysed wrongly
    /// or partly, so it is refused:
    /// - a pointer field must be a whole pointer-sized word of its object, at a multiple
    ///   of the pointer size (as the plugin reads them: `pointer_slots` in state_view.cpp); an
    ///   unaligned one would be filed under the wrong abstract field;
    /// - the call must pass at least the function's fixed parameters, and no more unless
    ///   it is variadic;
    /// - every `global:` and `func:` site, global name and function target must be the
    ///   module's: the projection only meets some of them, and one it does not meet would
    ///   otherwise be dropped silently.
    ///
    /// Errors do not name the file (the caller does).
    pub fn check_against(&self, prog: &crate::facts::Program, pointer_bytes: u64) -> Result<()> {
        let snap = &self.snap;
        let ptr = pointer_bytes.max(1);
        for o in &snap.objects {
            for s in &o.pointers {
                if s.offset % ptr != 0 {
                    bail!(
                        "object {}: pointer field at offset {} is not at a multiple of the pointer size ({} bytes)",
                        o.id,
                        s.offset,
                        ptr
                    );
                }
                if s.offset.saturating_add(ptr) > o.size {
                    bail!(
                        "object {}: pointer field at offset {} runs past the object's end (size {}, a pointer is {} bytes)",
                        o.id,
                        s.offset,
                        o.size,
                        ptr
                    );
                }
            }
        }
        let call = &snap.call;
        if let Some(f) = prog.function_by_name(&call.function) {
            let f = &prog.functions[f as usize];
            if f.defined {
                let (n, fixed) = (call.args.len(), f.formals.len());
                if n < fixed {
                    bail!(
                        "call of `{}`: {} argument{} for {} parameter{}",
                        f.name,
                        n,
                        if n == 1 { "" } else { "s" },
                        fixed,
                        if fixed == 1 { "" } else { "s" }
                    );
                }
                if n > fixed && f.varargs.is_none() {
                    bail!(
                        "call of `{}`: {} arguments, but `{}` takes {} and is not variadic",
                        f.name,
                        n,
                        f.name,
                        fixed
                    );
                }
            }
        }
        // (An unknown or undefined callee is the abstraction's error, as for any state.)
        let is_global = |name: &str| {
            prog.object_by_label(&crate::site::global(name))
                .is_some_and(|o| prog.objects[o as usize].kind == crate::facts::ObjKind::Global)
        };
        for (g, id) in &snap.globals {
            if !is_global(g) {
                bail!("global `{}`: the module has no global of that name", g);
            }
            let site = &snap.objects[self.index[id]].site;
            if **site != *crate::site::global(g) {
                bail!(
                    "global `{}`: its object {} has site `{}`, not `{}`",
                    g,
                    id,
                    site,
                    crate::site::global(g)
                );
            }
        }
        for o in &snap.objects {
            if let Some(g) = crate::site::global_name(&o.site) {
                if !is_global(g) {
                    bail!(
                        "object {}: site `{}` names a global the module does not have",
                        o.id,
                        o.site
                    );
                }
            } else if let Some(f) = o.site.strip_prefix("func:") {
                if prog.function_by_name(f).is_none() {
                    bail!(
                        "object {}: site `{}` names a function the module does not have",
                        o.id,
                        o.site
                    );
                }
            }
        }
        let function = |t: &SnapTarget, what: &dyn Fn() -> String| -> Result<()> {
            if let SnapTarget::Function { function } = t {
                if prog.function_by_name(function).is_none() {
                    bail!(
                        "{}: function pointer to `{}`, a function the module does not have",
                        what(),
                        function
                    );
                }
            }
            Ok(())
        };
        for (k, a) in call.args.iter().enumerate() {
            if let Arg::Targets { targets } = a {
                for t in targets {
                    function(t, &|| format!("call, argument {k}"))?;
                }
            }
        }
        for o in &snap.objects {
            for s in &o.pointers {
                for t in &s.targets {
                    function(t, &|| {
                        format!("object {}, pointer at offset {}", o.id, s.offset)
                    })?;
                }
            }
        }
        Ok(())
    }
}

impl SymbolicState for LoadedSnapshot {
    fn call(&self) -> Result<(&str, Vec<Option<Vec<Target>>>)> {
        let args = self
            .snap
            .call
            .args
            .iter()
            .map(|a| match a {
                Arg::Targets { targets } => {
                    Some(targets.iter().map(SnapTarget::to_target).collect())
                }
                Arg::Value { .. } => None,
            })
            .collect();
        Ok((&self.snap.call.function, args))
    }

    fn globals(&self) -> Vec<(String, StateObjId)> {
        self.snap
            .globals
            .iter()
            .map(|(g, &id)| (g.clone(), id))
            .collect()
    }

    fn global(&self, name: &str) -> Option<StateObjId> {
        self.snap.globals.get(name).copied()
    }

    fn object(&self, id: StateObjId) -> Result<Option<StateObject>> {
        Ok(self.index.get(&id).map(|&i| {
            let o = &self.snap.objects[i];
            StateObject {
                id: o.id,
                site: o.site.clone(),
                size: o.size,
                ty: o
                    .ty
                    .clone()
                    .map(|t| crate::state::ObjType::Named(t).after(o.type_offset)),
            }
        }))
    }

    fn pointer_slots(&self, id: StateObjId) -> Result<Vec<PointerSlot>> {
        let Some(&i) = self.index.get(&id) else {
            return Ok(Vec::new());
        };
        Ok(self.snap.objects[i]
            .pointers
            .iter()
            .map(|s| PointerSlot {
                offset: s.offset,
                targets: s.targets.iter().map(SnapTarget::to_target).collect(),
            })
            .collect())
    }
}

/// Record a projected state as a snapshot: the call, the globals, and the objects the call
/// can reach (replaying it gives the same analysis).
pub fn record(
    g: &crate::memory_graph::MemoryGraph,
    module: &str,
    path: Option<String>,
    skipped: bool,
) -> Snapshot {
    let conv = |ts: &[Target]| ts.iter().map(SnapTarget::from_target).collect::<Vec<_>>();
    Snapshot {
        schema: SCHEMA.to_string(),
        module: module.to_string(),
        path,
        call: Call {
            function: g.function.clone(),
            args: g
                .args
                .iter()
                .map(|a| match a {
                    Some(ts) => Arg::Targets { targets: conv(ts) },
                    None => Arg::Value {
                        value: "int".to_string(),
                    },
                })
                .collect(),
            skipped,
            line: None,
        },
        globals: g.globals.iter().cloned().collect(),
        objects: g
            .objects
            .iter()
            .map(|(o, slots)| SnapObject {
                id: o.id,
                site: o.site.clone(),
                size: o.size,
                ty: o
                    .ty
                    .as_ref()
                    .and_then(|t| t.split().1.name())
                    .map(Arc::from),
                type_offset: o.ty.as_ref().map_or(0, |t| t.split().0),
                pointers: slots
                    .iter()
                    .map(|s| SnapSlot {
                        offset: s.offset,
                        targets: conv(&s.targets),
                    })
                    .collect(),
            })
            .collect(),
    }
}
