//! Recorded state snapshots (`pspa.snapshot/1`): a symbolic state at a call site, written
//! by the KLEE plugin (`--pspa-dump-snapshots`) or by hand, replayed by `pspa modref`.
//! The format is documented in docs/snapshot.md.

use crate::state::{PointerSlot, StateObjId, StateObject, SymbolicState, Target};
use anyhow::{anyhow, bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

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

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum Arg {
    Targets { targets: Vec<SnapTarget> },
    Value { value: String },
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(untagged, deny_unknown_fields)]
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
    pub site: String,
    pub size: u64,
    #[serde(rename = "type", default)]
    pub ty: Option<String>,
    #[serde(default)]
    pub pointers: Vec<SnapSlot>,
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

impl SnapTarget {
    fn to_target(&self) -> Target {
        match self {
            SnapTarget::Object { object, offset } => Target::Object {
                id: *object,
                offset: *offset,
            },
            SnapTarget::Function { function } => Target::Function(function.clone()),
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
                function: f.clone(),
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
        let snap: Snapshot = serde_json::from_value(v)
            .map_err(|e| anyhow!("{}: malformed snapshot: {}", file.display(), e))?;
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
            for s in &o.pointers {
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
}

impl SymbolicState for LoadedSnapshot {
    fn call(&self) -> (&str, Vec<Option<Vec<Target>>>) {
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
        (&self.snap.call.function, args)
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

    fn object(&self, id: StateObjId) -> Option<StateObject> {
        let o = &self.snap.objects[*self.index.get(&id)?];
        Some(StateObject {
            id: o.id,
            site: o.site.clone(),
            size: o.size,
            ty: o.ty.clone().map(crate::state::ObjType::Named),
        })
    }

    fn pointer_slots(&self, id: StateObjId) -> Vec<PointerSlot> {
        let Some(&i) = self.index.get(&id) else {
            return Vec::new();
        };
        self.snap.objects[i]
            .pointers
            .iter()
            .map(|s| PointerSlot {
                offset: s.offset,
                targets: s.targets.iter().map(SnapTarget::to_target).collect(),
            })
            .collect()
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
                ty: o.ty.as_ref().and_then(|t| t.name()),
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
