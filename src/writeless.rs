//! Writeless functions: those that write no memory outside their own frame, in any state,
//! or only static objects.
//!
//! A bottom-up summary the state cannot change (issue 28): such a function's mod-set is
//! empty (or its statics) and its may-free set empty whatever its arguments point to, so a
//! mod/ref client needs no analysis of its calls, and no state is read. libtasn1's
//! `_asn1_find_up` (a walk up a tree through `left` pointers) was half of that library's
//! analysis time, each call a miss over a chain of nodes that differs at every call;
//! `asn1_find_node` writes only `errno` (uclibc's `strtol`).
//!
//! The check needs no points-to set of the state. Within one function, flow-insensitively,
//! each pointer's *origins* are tracked: the function's own stack objects (by object), its
//! parameters, and static objects (a global by its address, a library model's storage
//! for one call: `__errno_location()`); anything else (a value loaded through a parameter
//! or a global, a call's result) is "any". A stack slot's contents are what is stored into
//! it (at -O0 every local lives in a slot and is reloaded). A function's summary is the
//! parameters whose objects it may write (and those it may store a pointer into) and the
//! statics it may write, or none when it may write anything else, or store a pointer into
//! a static (an edge of every later state, which a summary's answer does not give). A call
//! applies its callee's summary to the call's arguments (a library model's `Mod(i)` is
//! such a summary); indirect calls, calls of unknown code, allocations, frees and
//! callbacks make a function unsummarised, and so does recursion (summaries are made
//! callees first). A function whose summary writes no parameter writes the same objects
//! in every state. Every full analysis of such a function that runs is checked against
//! the claim (`Session`: its mod-set within its statics, its free set empty).

use crate::facts::{Callee, Constraint, FuncId, ObjId, ObjKind, Program, VarId};
use crate::models::{Effect, Model};
use rustc_hash::FxHashMap;

/// A function's write summary: what it may write outside its own frame, in any state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The parameters whose objects it may write (a bit per parameter, the first 63).
    pub params: u64,
    /// Of those, the ones it may store a pointer into (an edge the state's points-to
    /// graph does not have).
    pub pointer_params: u64,
    /// The static objects it may write, sorted: globals by address (`@errno`), a library
    /// model's static storage (`__errno_location()`'s cell), never with a pointer.
    pub statics: Vec<ObjId>,
}

impl Summary {
    /// It writes nothing outside its frame.
    pub fn is_writeless(&self) -> bool {
        self.params == 0 && self.statics.is_empty()
    }

    /// Its writes do not depend on the state: no parameter's object (the statics it
    /// writes are the same objects in every state, and hold no pointer it stored).
    pub fn state_free(&self) -> bool {
        self.params == 0
    }
}

/// Whether each function of `prog` is writeless. `follow_exits`: as the session follows
/// calls that end the process; when it does not, such a callee's body is not what the
/// call does (`SessionOptions::follow_exits`), so it does not count.
pub fn writeless(prog: &Program, follow_exits: bool) -> Vec<bool> {
    summaries(prog, follow_exits)
        .into_iter()
        .map(|s| s.is_ok_and(|s| s.is_writeless()))
        .collect()
}

/// Per function whose writes do not depend on the state (`Summary::state_free`), the
/// static objects it may write (empty: writeless); None for the others.
pub fn state_free_writes(prog: &Program, follow_exits: bool) -> Vec<Option<Vec<ObjId>>> {
    summaries(prog, follow_exits)
        .into_iter()
        .map(|s| s.ok().filter(Summary::state_free).map(|s| s.statics))
        .collect()
}

/// Per function, its write summary, or why it may write other memory or could not be
/// summarised.
pub fn summaries(prog: &Program, follow_exits: bool) -> Vec<Result<Summary, Why>> {
    let n = prog.functions.len();
    debug_assert!(
        prog.objects.len() < STATIC as usize,
        "object ids fit beside the origins' tags"
    );
    let defs = defining_function(prog);
    let globals = global_addresses(prog);
    // Callees first (Kahn's order over direct calls whose bodies count); a cycle is
    // never ready, so a recursive function stays unsummarised.
    let mut waiting = vec![usize::MAX; n];
    let mut callers: Vec<Vec<FuncId>> = vec![Vec::new(); n];
    for (f, func) in prog.functions.iter().enumerate() {
        if !func.defined || func.body_replaced() || func.address_only {
            continue;
        }
        let mut callees: Vec<FuncId> = Vec::new();
        for &c in &func.calls {
            if let Callee::Direct(g) = prog.calls[c as usize].callee {
                if body_counts(prog, c, g, follow_exits) {
                    callees.push(g);
                }
            }
        }
        callees.sort_unstable();
        callees.dedup();
        waiting[f] = callees.len();
        for g in callees {
            callers[g as usize].push(f as FuncId);
        }
    }
    let mut out: Vec<Result<Summary, Why>> = prog
        .functions
        .iter()
        .map(|func| {
            Err(if !func.defined || func.body_replaced() {
                Why::NoBody
            } else {
                Why::Recursive
            })
        })
        .collect();
    let mut ready: Vec<FuncId> = (0..n as FuncId)
        .filter(|&f| waiting[f as usize] == 0)
        .collect();
    while let Some(f) = ready.pop() {
        out[f as usize] = summarise(prog, f, &defs, &globals, &out, follow_exits);
        for &c in &callers[f as usize] {
            waiting[c as usize] -= 1;
            if waiting[c as usize] == 0 {
                ready.push(c);
            }
        }
    }
    out
}

/// Every function a call of `f` may run or call: `f` and its direct callees, transitively
/// (all direct for a writeless function), sorted; a callee that ends the process is in it,
/// what it runs is not (unless `follow_exits`), as in `CallResult::calls`.
pub fn calls_of(prog: &Program, f: FuncId, follow_exits: bool) -> Vec<FuncId> {
    let mut seen = vec![false; prog.functions.len()];
    let mut work = vec![f];
    seen[f as usize] = true;
    let mut out = Vec::new();
    while let Some(g) = work.pop() {
        out.push(g);
        let func = &prog.functions[g as usize];
        if g != f && func.ends_process && !follow_exits {
            continue;
        }
        for &c in &func.calls {
            if let Callee::Direct(h) = prog.calls[c as usize].callee {
                if !seen[h as usize] {
                    seen[h as usize] = true;
                    work.push(h);
                }
            }
        }
    }
    out.sort_unstable();
    out
}

/// Whether call `c` of `g` runs `g`'s body (else its model, or nothing: a call that ends
/// the process and is not followed).
fn body_counts(prog: &Program, c: u32, g: FuncId, follow_exits: bool) -> bool {
    let callee = &prog.functions[g as usize];
    prog.calls[c as usize].model.is_none()
        && callee.defined
        && !callee.body_replaced()
        && (!callee.ends_process || follow_exits)
}

/// The one function whose constraints define each variable (formals count as their
/// function's), or `MANY` (defined in several, by the program's constant expressions, or
/// bound by calls), or `NONE`: defined nowhere, so it points nowhere (a null constant).
fn defining_function(prog: &Program) -> Vec<u32> {
    let mut def = vec![NONE; prog.num_vars as usize];
    let mut mark = |v: VarId, f: u32| {
        if let Some(d) = def.get_mut(v as usize) {
            *d = if *d == NONE || *d == f { f } else { MANY };
        }
    };
    for (f, func) in prog.functions.iter().enumerate() {
        for v in func.formals.iter().flatten() {
            mark(*v, f as u32);
        }
        for c in &func.constraints {
            if let Some(v) = c.dst() {
                mark(v, f as u32);
            }
        }
    }
    for c in &prog.init_constraints {
        if let Some(v) = c.dst() {
            mark(v, MANY);
        }
    }
    // Bound by calls: what a callee returns, a function's result, variadic areas.
    let bound = prog
        .calls
        .iter()
        .filter_map(|c| c.ret)
        .chain(prog.functions.iter().filter_map(|f| f.ret))
        .chain(
            prog.functions
                .iter()
                .filter_map(|f| f.varargs.map(|(_, v)| v)),
        );
    for v in bound {
        mark(v, MANY);
    }
    def
}

/// The variables that are a global's address, or a constant expression of one alone
/// (`@errno`, `getelementptr (@table, 0, 3)`, casts), by the program's constant
/// constraints: each defined there once, from one global.
fn global_addresses(prog: &Program) -> FxHashMap<VarId, ObjId> {
    let mut defs: FxHashMap<VarId, u32> = FxHashMap::default();
    for c in &prog.init_constraints {
        if let Some(v) = c.dst() {
            *defs.entry(v).or_default() += 1;
        }
    }
    let once = |v: VarId| defs.get(&v) == Some(&1);
    let mut out: FxHashMap<VarId, ObjId> = FxHashMap::default();
    // Casts and GEPs of a constant come after it in the list, mostly: repeat until settled.
    loop {
        let before = out.len();
        for c in &prog.init_constraints {
            match *c {
                Constraint::AddrOf { dst, obj, .. }
                    if once(dst) && prog.objects[obj as usize].kind == ObjKind::Global =>
                {
                    out.insert(dst, obj);
                }
                Constraint::Copy { dst, src } | Constraint::Gep { dst, src, .. } if once(dst) => {
                    if let Some(&g) = out.get(&src) {
                        out.insert(dst, g);
                    }
                }
                _ => {}
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

const NONE: u32 = u32::MAX;
const MANY: u32 = u32::MAX - 1;

/// Where a pointer of the function being summarised may point: `Some` of its own stack
/// objects (object ids), its parameters (`PARAM | i`) and static objects (`STATIC | id`:
/// a global by address, a model's static storage), sorted; None: anywhere else too.
type Origins = Option<Vec<u32>>;
const PARAM: u32 = 1 << 31;
const STATIC: u32 = 1 << 30;
/// Own stack objects: neither tag.
fn own(o: u32) -> bool {
    o & (PARAM | STATIC) == 0
}
/// More origins than this: "anywhere" (keeps each step cheap).
const MAX_ORIGINS: usize = 16;

fn union_into(into: &mut Origins, from: &Origins) -> bool {
    match (into.as_mut(), from) {
        (None, _) => false,
        (Some(_), None) => {
            *into = None;
            true
        }
        (Some(a), Some(b)) => {
            let before = a.len();
            a.extend(b.iter().copied());
            a.sort_unstable();
            a.dedup();
            if a.len() > MAX_ORIGINS {
                *into = None;
                return true;
            }
            a.len() != before
        }
    }
}

/// Why a function has no summary (`pspa writeless` prints it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Declared, or a libc body its model replaces: its calls apply the model.
    NoBody,
    /// It calls itself (through a cycle of direct calls), or a function that does.
    Recursive,
    /// A write through a pointer that may point to memory other than its frame and its
    /// parameters' objects (a global, a value loaded through a parameter, a call's result).
    WritesElsewhere,
    /// An indirect call, unknown code (inline asm, an unmodelled external), or a library
    /// call that allocates, frees, or calls back.
    Calls,
    /// It calls a function that has no summary.
    Callee,
    /// The origins did not settle within the pass bound.
    Unsettled,
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Why::NoBody => "no body (its model is its summary)",
            Why::Recursive => "recursive (or calls a recursive function)",
            Why::WritesElsewhere => "writes through a pointer that may point outside its frame and parameters",
            Why::Calls => "an indirect call, unknown code, or a library call that allocates, frees or calls back",
            Why::Callee => "calls a function that has no summary",
            Why::Unsettled => "origins did not settle",
        })
    }
}

/// `f`'s summary (see `summaries`), its callees' known.
fn summarise(
    prog: &Program,
    f: FuncId,
    defs: &[u32],
    globals: &FxHashMap<VarId, ObjId>,
    done: &[Result<Summary, Why>],
    follow_exits: bool,
) -> Result<Summary, Why> {
    let func = &prog.functions[f as usize];
    let mut val: FxHashMap<VarId, Origins> = FxHashMap::default();
    for (i, v) in func.formals.iter().enumerate() {
        if let Some(v) = v {
            let o = (i < 63).then(|| vec![PARAM | i as u32]);
            val.insert(*v, o);
        }
    }
    // A library model's static storage (errno's cell): the call's own object, the same in
    // every state; seeded before any write through it is met.
    for &c in &func.calls {
        let cs = &prog.calls[c as usize];
        let Callee::Direct(g) = cs.callee else {
            continue;
        };
        if body_counts(prog, c, g, follow_exits) {
            continue;
        }
        let model = cs.model.or(prog.functions[g as usize].model);
        if let (Some(m), Some(r), Some(h)) = (model, cs.ret, cs.heap) {
            if m.returns_only_static() {
                val.insert(r, Some(vec![STATIC | h]));
            }
        }
    }
    // A variable defined by this function alone starts empty and grows; any other is
    // "anywhere" (a global's address, a call's result).
    let get = |val: &FxHashMap<VarId, Origins>, v: VarId| -> Origins {
        match val.get(&v) {
            Some(o) => o.clone(),
            None if matches!(defs.get(v as usize), Some(&d) if d == f || d == NONE) => {
                Some(Vec::new())
            }
            None => globals.get(&v).map(|&g| vec![STATIC | g]),
        }
    };
    // Each own stack object's contents: what is stored in it.
    let mut contents: FxHashMap<u32, Origins> = FxHashMap::default();
    let mut w = Writes::default();
    // Flow-insensitive: repeat until nothing grows (each pass only adds origins).
    for _pass in 0..64 {
        let mut changed = false;
        for c in &func.constraints {
            match *c {
                Constraint::AddrOf { dst, obj, .. } => {
                    let o = &prog.objects[obj as usize];
                    let mine = o.kind == ObjKind::Stack && o.owner == Some(f);
                    let from = mine.then(|| vec![obj]);
                    let e = val.entry(dst).or_insert_with(|| Some(Vec::new()));
                    changed |= union_into(e, &from);
                }
                Constraint::Copy { dst, src } | Constraint::Gep { dst, src, .. } => {
                    let from = get(&val, src);
                    let e = val.entry(dst).or_insert_with(|| Some(Vec::new()));
                    changed |= union_into(e, &from);
                }
                Constraint::Load { dst, ptr, .. } => {
                    let from = match get(&val, ptr) {
                        Some(objs) if objs.iter().all(|&o| own(o)) => {
                            let mut acc: Origins = Some(Vec::new());
                            for o in objs {
                                let c = contents.get(&o).cloned().unwrap_or(Some(Vec::new()));
                                union_into(&mut acc, &c);
                            }
                            acc
                        }
                        // Through a parameter or a static: memory of the state, anything.
                        _ => None,
                    };
                    let e = val.entry(dst).or_insert_with(|| Some(Vec::new()));
                    changed |= union_into(e, &from);
                }
                Constraint::Store { ptr, src, .. } => {
                    let from = get(&val, src);
                    changed |= w
                        .write(&get(&val, ptr), Some(&from), &mut contents)
                        .inspect_err(|_| trace_write(prog, f, ptr))?;
                }
                Constraint::MemCopy { dst, .. } => {
                    changed |= w
                        .write(&get(&val, dst), Some(&None), &mut contents)
                        .inspect_err(|_| trace_write(prog, f, dst))?;
                }
                // Unknown code (inline asm, an unmodelled external) may write what it gets.
                Constraint::Escape { .. } => return Err(Why::Calls),
            }
        }
        // Writes that are accesses only (memset, va_start): their bytes are not pointers
        // the analysis follows, but they are writes.
        for a in func.accesses.iter().filter(|a| a.write) {
            changed |= w
                .write(&get(&val, a.ptr), None, &mut contents)
                .inspect_err(|_| trace_write(prog, f, a.ptr))?;
        }
        for &c in &func.calls {
            let cs = &prog.calls[c as usize];
            let Callee::Direct(g) = cs.callee else {
                return Err(Why::Calls);
            };
            let trace = |i: usize| {
                log::debug!(
                    "`{}` calls `{}`, which writes through its argument {i}: it may point outside the caller's frame and parameters",
                    func.name,
                    prog.functions[g as usize].name
                )
            };
            let arg = |i: usize| -> Origins {
                match cs.args.get(i).copied().flatten() {
                    Some(v) => get(&val, v),
                    // No pointer passed (a null constant, an integer): nothing to write
                    // through, as the analysis sees it.
                    None => Some(Vec::new()),
                }
            };
            if body_counts(prog, c, g, follow_exits) {
                // The callee writes its parameters' objects (anything they hold, as far
                // as this function can tell) and its statics.
                let sum = done[g as usize].as_ref().map_err(|_| Why::Callee)?;
                for i in 0..63 {
                    if sum.params & (1 << i) != 0 {
                        let what = (sum.pointer_params & (1 << i) != 0).then_some(&None);
                        changed |= w
                            .write(&arg(i), what, &mut contents)
                            .inspect_err(|_| trace(i))?;
                    }
                }
                let statics = Some(sum.statics.iter().map(|&o| STATIC | o).collect());
                changed |= w.write(&statics, None, &mut contents)?;
                continue;
            }
            let callee = &prog.functions[g as usize];
            if callee.ends_process && !follow_exits && cs.model.is_none() {
                continue;
            }
            let model = cs.model.or(callee.model).unwrap_or(Model::Unknown);
            let Model::Known(effects) = model else {
                return Err(Why::Calls);
            };
            for e in effects {
                match *e {
                    Effect::RetArg(_)
                    | Effect::RetInto(_)
                    | Effect::Ref(_)
                    | Effect::RefFrom(_)
                    | Effect::RefDeep(_) => {}
                    // The model's storage for this call, the same object in every state.
                    // Seeded above.
                    Effect::RetStatic => {}
                    // What a library call leaves in a local is not followed here: anything.
                    // Every model write counts as one that may store a pointer: some `Mod`s
                    // do (`strsep`'s `*stringp`, `pthread_join`'s `*retval`), so a static
                    // that a library call writes is not summarised.
                    Effect::Mod(i) | Effect::Copy(i, _) | Effect::StoreInto { ptr: i, .. } => {
                        changed |= w
                            .write(&arg(i), Some(&None), &mut contents)
                            .inspect_err(|_| trace(i))?
                    }
                    Effect::ModFrom(i) => {
                        for k in i..cs.args.len() {
                            changed |= w
                                .write(&arg(k), Some(&None), &mut contents)
                                .inspect_err(|_| trace(k))?;
                        }
                    }
                    Effect::Alloc
                    | Effect::Realloc(_)
                    | Effect::ModRet
                    | Effect::Symbolic(_)
                    | Effect::Free(_)
                    | Effect::ModDeep(_)
                    | Effect::StoreAlloc(_)
                    | Effect::Callback { .. } => return Err(Why::Calls),
                }
            }
        }
        if !changed {
            return Ok(w.summary());
        }
    }
    Err(Why::Unsettled)
}

/// Which write made `f` unsummarised (`RUST_LOG=pspa::writeless=debug`).
fn trace_write(prog: &Program, f: FuncId, ptr: VarId) {
    log::debug!(
        "`{}` writes through {}, which may point outside its frame and parameters",
        prog.functions[f as usize].name,
        prog.var_names.get(ptr as usize).map_or("?", |s| s.as_str())
    );
}

/// What the function being summarised writes outside its frame, so far.
#[derive(Default)]
struct Writes {
    params: u64,
    pointer_params: u64,
    statics: Vec<ObjId>,
}

impl Writes {
    /// A write through a pointer of origins `ptr`: into own stack objects (their contents
    /// grow by `what`), through parameters or into statics (they are written), or None:
    /// anywhere. `what`: the pointer stored (None: bytes that are no pointer). A pointer
    /// stored into a static is not summarised: it would be an edge of every later state
    /// that the summary's answer (no post-state) does not give.
    fn write(
        &mut self,
        ptr: &Origins,
        what: Option<&Origins>,
        contents: &mut FxHashMap<u32, Origins>,
    ) -> Result<bool, Why> {
        let objs = ptr.as_ref().ok_or(Why::WritesElsewhere)?;
        let mut changed = false;
        for &o in objs {
            if o & PARAM != 0 {
                let bit = 1u64 << (o & !PARAM);
                changed |= self.params & bit == 0;
                self.params |= bit;
                if what.is_some() {
                    changed |= self.pointer_params & bit == 0;
                    self.pointer_params |= bit;
                }
            } else if o & STATIC != 0 {
                if what.is_some() {
                    return Err(Why::WritesElsewhere);
                }
                let g = o & !STATIC;
                if let Err(at) = self.statics.binary_search(&g) {
                    self.statics.insert(at, g);
                    changed = true;
                }
            } else {
                let e = contents.entry(o).or_insert_with(|| Some(Vec::new()));
                changed |= union_into(e, what.unwrap_or(&Some(Vec::new())));
            }
        }
        Ok(changed)
    }

    fn summary(self) -> Summary {
        Summary {
            params: self.params,
            pointer_params: self.pointer_params,
            statics: self.statics,
        }
    }
}
