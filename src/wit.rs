//! Write Integrity Testing colours (paper 6.3). WIT gives every write instruction and every
//! object field a colour; at run time a write may only touch fields of its own colour. A
//! write's colour must be that of every field it may write, so two writes whose points-to
//! sets intersect share a colour: the sets merge (union-find over locations) until they
//! are disjoint. Every field no write touches is a colour of its own. Finer sets give more
//! colours, and more overflows that WIT stops.
//!
//! Facts in: the program's writes (`Function::writes`: stores, memory intrinsics, library
//! calls' written arguments) and the points-to set of each one's pointer (`ValueSets`,
//! whole-program for SPA, from an analysed state for PSPA). Relation out: a colour per
//! location and per write (`WitTables`, JSON `pspa.wit/1`, docs/wit.md).

use crate::abstraction::{AbstractState, UNKNOWN_SITE};
use crate::facts::{LayoutId, ObjKind, Program, WriteKind};
use crate::local::{ResLoc, ValueSets};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::collections::BTreeMap;

pub const SCHEMA: &str = "pspa.wit/1";

/// The colour of a write whose set names no object (a null or dead pointer).
pub const NO_OBJECT: u32 = 0;

/// The tables WIT instruments a program with, and its measures.
#[derive(Clone, Debug, Serialize)]
pub struct WitTables {
    pub schema: &'static str,
    /// Distinct colours of locations (`NO_OBJECT` is not one).
    pub colours: usize,
    /// Distinct colours of heap locations: the paper's measure.
    pub heap_colours: usize,
    /// Location label (`SITE.FIELD`, `SITE.*` for a field-insensitive object) -> colour.
    pub objects: BTreeMap<String, u32>,
    /// Every write of the functions the analysis reached, in program order.
    pub stores: Vec<StoreColour>,
    /// Writes whose set names `unknown` (a value that may point anywhere): they merge
    /// every location into one colour.
    pub unknown_writes: usize,
    /// Colour changes between consecutive heap allocations (computed in KLEE).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transitions: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StoreColour {
    pub function: String,
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub kind: WriteKind,
    pub colour: u32,
}

/// Which objects the colours cover.
pub enum Objects<'a> {
    /// SPA: the program's objects, by static site.
    Whole,
    /// PSPA: the analysed state's objects (unique sites), and the program's heap and stack
    /// sites for objects allocated after it.
    State(&'a AbstractState),
}

/// Locations and a union-find over them.
struct Colouring<'a> {
    prog: &'a Program,
    abs: Option<&'a AbstractState>,
    locs: Vec<ResLoc>,
    index: FxHashMap<ResLoc, usize>,
    parent: Vec<usize>,
    /// Locations of each object (`ResLoc` with its field dropped), to expand `X.*`.
    by_object: FxHashMap<ResLoc, Vec<usize>>,
}

/// Field `field` of `l`'s object (a made object has no fields: itself).
fn at_field(l: &ResLoc, field: Option<u32>) -> ResLoc {
    match l {
        ResLoc::Abs { obj, .. } => ResLoc::Abs { obj: *obj, field },
        ResLoc::Static { obj, .. } => ResLoc::Static { obj: *obj, field },
        ResLoc::Made(_) => l.clone(),
    }
}

/// A location's object: the location with no field.
fn object_of(l: &ResLoc) -> ResLoc {
    match l {
        ResLoc::Made(s) => ResLoc::Made(
            crate::site::split_location(s)
                .map_or(s.as_str(), |(o, _)| o)
                .to_string(),
        ),
        l => at_field(l, None),
    }
}

impl<'a> Colouring<'a> {
    fn add(&mut self, l: ResLoc) -> usize {
        if let Some(&i) = self.index.get(&l) {
            return i;
        }
        let i = self.locs.len();
        self.by_object.entry(object_of(&l)).or_default().push(i);
        self.index.insert(l.clone(), i);
        self.locs.push(l);
        self.parent.push(i);
        i
    }

    /// Every field of an object, or its one location if it is field-insensitive.
    fn add_object(&mut self, obj: ResLoc, layout: Option<LayoutId>) {
        match layout {
            Some(l) => {
                for f in 0..self.prog.layouts[l as usize].abs_size() {
                    self.add(at_field(&obj, Some(f)));
                }
            }
            None => {
                self.add(obj);
            }
        }
    }

    fn find(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }

    fn layout(&self, l: &ResLoc) -> Option<LayoutId> {
        match l {
            ResLoc::Abs { obj, .. } => self.abs.and_then(|a| a.objects[*obj as usize].layout),
            ResLoc::Static { obj, .. } => self.prog.objects[*obj as usize].layout,
            ResLoc::Made(_) => None,
        }
    }

    fn is_heap(&self, l: &ResLoc) -> bool {
        match l {
            ResLoc::Abs { obj, .. } => self
                .abs
                .is_some_and(|a| a.objects[*obj as usize].kind == ObjKind::Heap),
            ResLoc::Static { obj, .. } => self.prog.objects[*obj as usize].kind == ObjKind::Heap,
            ResLoc::Made(s) => crate::site::kind(s) == ObjKind::Heap,
        }
    }

    fn label(&self, l: &ResLoc) -> String {
        match (l, self.abs) {
            (ResLoc::Abs { obj, field }, Some(a)) => crate::site::location(
                &a.objects[*obj as usize].label(),
                ResLoc::field_part(*field),
            ),
            (l, a) => l.label(self.prog, a.unwrap_or(&EMPTY)),
        }
    }

    /// The locations a write of `size` bytes through a pointer into `l` may touch: the
    /// fields its bytes overlap (all of the object's when the size is unknown); every
    /// location of the object for a field-insensitive `X.*`.
    fn written(&mut self, l: &ResLoc, size: Option<u64>) -> Vec<usize> {
        let field = match l {
            ResLoc::Abs { field, .. } | ResLoc::Static { field, .. } => *field,
            ResLoc::Made(_) => None,
        };
        let whole = |c: &mut Self| {
            let o = object_of(l);
            let mut v = vec![c.add(l.clone())];
            v.extend(c.by_object.get(&o).into_iter().flatten().copied());
            v
        };
        match (field, self.layout(l), size) {
            (Some(f), Some(lay), Some(size)) => {
                let layout = &self.prog.layouts[lay as usize];
                let fi = &layout.fields[f as usize];
                let fields = layout.fields_in(fi.offset as i64, size);
                fields
                    .into_iter()
                    .map(|f| self.add(at_field(l, Some(f))))
                    .collect()
            }
            _ => whole(self),
        }
    }
}

static EMPTY: once_cell::sync::Lazy<AbstractState> =
    once_cell::sync::Lazy::new(AbstractState::default);

/// The colours, and lookups by location and by write instruction (what KLEE asks).
#[derive(Clone, Debug)]
pub struct WitColours {
    pub tables: WitTables,
    by_loc: FxHashMap<ResLoc, u32>,
    by_inst: FxHashMap<usize, u32>,
}

impl WitColours {
    /// The colour of each field of an object (`obj`: its location with no field; `fields`:
    /// its layout's field count, None if field-insensitive), None if the object is not
    /// coloured (not in the analysed state, a function).
    pub fn object(&self, obj: &ResLoc, fields: Option<u32>) -> Option<Vec<u32>> {
        let whole = self.by_loc.get(obj).copied();
        let at = |f: u32| self.by_loc.get(&at_field(obj, Some(f))).copied().or(whole);
        match fields {
            Some(n) if n > 0 => (0..n).map(at).collect(),
            _ => whole.map(|c| vec![c]),
        }
    }

    /// The colour of the write made by instruction `inst` (an `llvm::Instruction*`), if the
    /// coloured functions have it.
    pub fn write(&self, inst: usize) -> Option<u32> {
        self.by_inst.get(&inst).copied()
    }
}

/// The whole-program (SPA) colours: every defined function analysed, the colours over the
/// program's objects from the whole program's points-to sets.
pub fn whole_program(prog: &Program) -> WitColours {
    let a = crate::analysis::analyze(prog);
    let sets = crate::query::Answer::whole_program_points_to(&a);
    colours(prog, Objects::Whole, &sets)
}

/// The tables alone (see `colours`).
pub fn colour(prog: &Program, objects: Objects<'_>, sets: &ValueSets) -> WitTables {
    colours(prog, objects, sets).tables
}

/// The colours of the writes of the functions `sets` covers (those the analysis reached),
/// over `objects`.
pub fn colours(prog: &Program, objects: Objects<'_>, sets: &ValueSets) -> WitColours {
    let abs = match objects {
        Objects::State(a) => Some(a),
        Objects::Whole => None,
    };
    let mut c = Colouring {
        prog,
        abs,
        locs: Vec::new(),
        index: Default::default(),
        parent: Vec::new(),
        by_object: Default::default(),
    };
    let mut unknown_obj = None;
    if let Some(a) = abs {
        for (i, o) in a.objects.iter().enumerate() {
            if &*o.site == UNKNOWN_SITE {
                unknown_obj = Some(i as u32);
            } else if o.kind != ObjKind::Func {
                c.add_object(
                    ResLoc::Abs {
                        obj: i as u32,
                        field: None,
                    },
                    o.layout,
                );
            }
        }
    }
    for (i, o) in prog.objects.iter().enumerate() {
        let later = matches!(o.kind, ObjKind::Heap | ObjKind::Stack);
        if o.kind != ObjKind::Func && (abs.is_none() || later) {
            c.add_object(
                ResLoc::Static {
                    obj: i as u32,
                    field: None,
                },
                o.layout,
            );
        }
    }
    // Each write's locations merge into one colour; remember one location per write.
    let mut stores = Vec::new();
    let mut insts = Vec::new();
    let mut firsts = Vec::new();
    let mut unknown_writes = 0;
    for &fid in &sets.functions {
        let f = &prog.functions[fid as usize];
        for w in &f.writes {
            let Some(set) = sets.get(w.ptr) else { continue };
            let mut first = None;
            // The state's `unknown`, or the one a model made for input addresses.
            let is_unknown = |l: &ResLoc| {
                l.is_input_unknown()
                    || matches!(l, ResLoc::Abs { obj, .. } if Some(*obj) == unknown_obj)
            };
            if set.iter().any(is_unknown) {
                unknown_writes += 1;
            }
            for l in set {
                if is_unknown(l) {
                    continue;
                }
                for i in c.written(l, w.size) {
                    match first {
                        None => first = Some(i),
                        Some(j) => c.union(i, j),
                    }
                }
            }
            firsts.push(first);
            insts.push(w.inst);
            stores.push(StoreColour {
                function: f.name.clone(),
                file: prog
                    .files
                    .get(w.loc.file as usize)
                    .cloned()
                    .unwrap_or_default(),
                line: w.loc.line,
                column: w.loc.col,
                kind: w.kind,
                colour: NO_OBJECT,
            });
        }
    }
    if unknown_writes > 0 {
        // A write that may land anywhere shares its colour with every location.
        for i in 1..c.locs.len() {
            c.union(0, i);
        }
    }
    // Colours numbered from 1 in the order of the locations' labels: stable across runs.
    let labels: Vec<String> = c.locs.iter().map(|l| c.label(l)).collect();
    let mut order: Vec<usize> = (0..c.locs.len()).collect();
    order.sort_by(|&a, &b| labels[a].cmp(&labels[b]));
    let mut colour_of_root: FxHashMap<usize, u32> = Default::default();
    let mut objects = BTreeMap::new();
    let mut by_loc = FxHashMap::default();
    let mut heap = rustc_hash::FxHashSet::default();
    for &i in &order {
        let r = c.find(i);
        let n = colour_of_root.len() as u32 + 1;
        let col = *colour_of_root.entry(r).or_insert(n);
        if c.is_heap(&c.locs[i]) {
            heap.insert(col);
        }
        objects.insert(labels[i].clone(), col);
        by_loc.insert(c.locs[i].clone(), col);
    }
    let mut by_inst = FxHashMap::default();
    for ((s, first), inst) in stores.iter_mut().zip(firsts).zip(insts) {
        if let Some(i) = first {
            s.colour = colour_of_root[&c.find(i)];
        }
        by_inst.insert(inst, s.colour);
    }
    let tables = WitTables {
        schema: SCHEMA,
        colours: colour_of_root.len(),
        heap_colours: heap.len(),
        objects,
        stores,
        unknown_writes,
        transitions: None,
    };
    WitColours {
        tables,
        by_loc,
        by_inst,
    }
}

impl WitTables {
    /// The `pspa.wit/1` JSON document, with a final newline.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).expect("the tables serialise") + "\n"
    }

    /// The two tables as CSV: `# objects` (location, colour), then `# stores`.
    pub fn csv(&self) -> String {
        use std::fmt::Write;
        let mut o = String::new();
        let q = |s: &str| {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        let _ = writeln!(
            o,
            "# objects: colours = {}, heap colours = {}",
            self.colours, self.heap_colours
        );
        let _ = writeln!(o, "location,colour");
        for (l, c) in &self.objects {
            let _ = writeln!(o, "{},{}", q(l), c);
        }
        let _ = writeln!(o, "# stores");
        let _ = writeln!(o, "function,file,line,column,kind,colour");
        for s in &self.stores {
            let kind = serde_json::to_value(s.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "{},{},{},{},{},{}",
                q(&s.function),
                q(&s.file),
                s.line,
                s.column,
                kind,
                s.colour
            );
        }
        o
    }
}
