// KleeStateView (state_view.h): a KLEE state as the core sees it, and the options that
// bound how long reading one may take.

#include "state_view.h"

#include "pspa-klee/src/lib.rs.h"

#include "klee/Expr/Expr.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "lib/Core/AddressSpace.h"
#include "lib/Core/Executor.h"
#include "lib/Core/TimingSolver.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace {
/// Bound of ReadContext::givenUp (it keeps the expressions alive).
constexpr std::size_t MaxGivenUp = 4096;

cl::opt<unsigned> PspaMaxResolutions(
    "pspa-max-resolutions",
    cl::desc("Objects a symbolic pointer in memory may resolve to before the analysis of "
             "the call gives up conservatively (default 64)"),
    cl::init(64), cl::cat(klee::MiscCat));

cl::opt<unsigned> PspaMaxResolveMillis(
    "pspa-max-resolve-ms",
    cl::desc("Time allowed to resolve one symbolic address in memory with KLEE's solver "
             "(default 125 ms); beyond it the address becomes an unknown target"),
    cl::init(125), cl::cat(klee::MiscCat));

cl::opt<unsigned> PspaMaxReadMillis(
    "pspa-max-read-ms",
    cl::desc("Time one call's state reading may spend resolving symbolic addresses in memory "
             "with KLEE's solver (default 250 ms); past it, the remaining symbolic addresses "
             "are unknown targets (\"may point anywhere\"). KLEE cannot stop a run while a "
             "plugin hook runs: this bounds how long one analysed call can hold it (0: resolve "
             "none)"),
    cl::init(250), cl::cat(klee::MiscCat));

cl::opt<unsigned> PspaSlowResolveMillis(
    "pspa-slow-resolve-ms",
    cl::desc("A symbolic address that resolves but takes at least this long (default 5 ms) "
             "strikes as a timeout does (--pspa-max-resolve-ms) when its call's answer holds "
             "an unknown target from reading all the same: it bought no precision"),
    cl::init(5), cl::cat(klee::MiscCat));

/// Whether byte `off` of an object of type `t` starts a pointer field (arrays squeezed,
/// nested structs walked; an object larger than its type is an array of it); false for
/// an unknown type.
bool pointerAt(const DataLayout &dl, Type *t, std::uint64_t off) {
  if (t && t->isSized() && dl.getTypeAllocSize(t) > 0)
    off %= dl.getTypeAllocSize(t);
  while (t) {
    if (t->isPointerTy())
      return off == 0;
    if (auto *st = dyn_cast<StructType>(t)) {
      if (st->isOpaque() || off >= dl.getTypeAllocSize(st))
        return false;
      const StructLayout *sl = dl.getStructLayout(st);
      unsigned i = sl->getElementContainingOffset(off);
      off -= sl->getElementOffset(i);
      t = st->getElementType(i);
    } else if (auto *at = dyn_cast<ArrayType>(t)) {
      std::uint64_t es = dl.getTypeAllocSize(at->getElementType());
      if (es == 0)
        return false;
      off %= es;
      t = at->getElementType();
    } else {
      return false;
    }
  }
  return false;
}
} // namespace

namespace pspa_plugin {

/// Whether the core lays out objects of type `t` (scalars, pointers, named structs, arrays
/// of those); other types (literal structs, functions...) leave an object untyped, so a
/// later cast may still type it.
bool layoutable(Type *t) {
  if (!t)
    return false;
  if (t->isPointerTy() || t->isIntegerTy() || t->isFloatTy() || t->isDoubleTy() || t->isX86_FP80Ty())
    return true;
  if (auto *st = dyn_cast<StructType>(t))
    return st->hasName() && !st->isLiteral();
  if (auto *at = dyn_cast<ArrayType>(t))
    return layoutable(at->getElementType());
  return false;
}

namespace {
bool aggregate(Type *t) { return t->isStructTy() || t->isArrayTy(); }
} // namespace

bool learnCast(DenseMap<std::uint64_t, ObjectType> &types, std::uint64_t id, std::uint64_t size,
               ObjectType cast) {
  if (cast.offset != 0 && (!aggregate(cast.type) || cast.offset > MaxHeader || cast.offset >= size))
    return false;
  auto it = types.find(id);
  if (it == types.end()) {
    types[id] = cast;
    return true;
  }
  ObjectType &known = it->second;
  bool better = aggregate(cast.type) && (!aggregate(known.type) || (known.offset != 0 && cast.offset == 0));
  if (better)
    known = cast;
  return better;
}

pspa::Read KleeStateView::arg(std::size_t i, rust::Vec<pspa::TargetFfi> &out) const {
  if (args[i]->getWidth() != klee::Context::get().getPointerWidth())
    return pspa::Read::NoPointer;
  bool typed = i < callee->arg_size() && callee->getArg(i)->getType()->isPointerTy();
  Targets got;
  if (!targets(args[i], typed, got))
    return pspa::Read::Failed;
  for (const pspa::TargetFfi &t : got)
    out.push_back(t);
  return out.empty() ? pspa::Read::NoPointer : pspa::Read::Pointer;
}

rust::Vec<pspa::GlobalFfi> KleeStateView::globals() const {
  if (!ctx.globalsFound) {
    for (auto it = state.addressSpace.objects.begin(), ie = state.addressSpace.objects.end(); it != ie; ++it)
      if (it->first->allocSite && isa<GlobalVariable>(it->first->allocSite)) {
        ctx.globalObjects.push_back(it->first);
        ctx.globalById[it->first->id] = it->first;
      }
    ctx.globalsFound = true;
  }
  rust::Vec<pspa::GlobalFfi> v;
  for (const klee::MemoryObject *mo : ctx.globalObjects) {
    v.push_back(pspa::GlobalFfi{reinterpret_cast<std::size_t>(mo->allocSite), mo->id});
  }
  return v;
}

/// An object the core may ask for: a global, or one met as a target during this call.
const klee::MemoryObject *KleeStateView::find(std::uint64_t id) const {
  auto it = known.find(id);
  if (it != known.end())
    return it->second;
  auto g = ctx.globalById.find(id);
  return g == ctx.globalById.end() ? nullptr : g->second;
}

bool KleeStateView::object(std::uint64_t id, pspa::ObjectFfi &out) const {
  const klee::MemoryObject *mo = find(id);
  if (!mo)
    return false;
  if (recording && met.size() >= recordCap) {
    // Too large to be kept: stop recording.
    recording = false;
    met = {};
    readMos = {};
    slots = {};
    unresolved = {};
  }
  if (recording)
    met.push_back(mo);
  out.id = id;
  out.site = reinterpret_cast<std::size_t>(mo->allocSite);
  out.size = mo->size;
  ObjectType t = typeOf(mo);
  out.ty = reinterpret_cast<std::size_t>(t.type);
  out.ty_offset = t.offset;
  return true;
}

/// The type of an object: its global's or alloca's, else the first cast of its base
/// pointer (paper, section 5), else null (unknown: field-insensitive).
std::pair<std::uint64_t, std::uint64_t> boundSpan(const klee::AddressSpace &space) {
  if (space.objects.empty())
    return {0, 0};
  const klee::MemoryObject *last = space.objects.max().first;
  return {space.objects.min().first->address, last->address + std::max<std::uint64_t>(last->size, 1)};
}

const klee::MemoryObject *objectHolding(const klee::AddressSpace &space, std::uint64_t v,
                                        klee::MemoryObject &probe) {
  probe.address = v;
  const auto *res = space.objects.lookup_previous(&probe);
  if (!res)
    return nullptr;
  const klee::MemoryObject *mo = res->first;
  return (mo->size == 0 && v == mo->address) || v - mo->address < mo->size ? mo : nullptr;
}

ObjectType objectType(const ReadContext &ctx, const klee::MemoryObject *mo) {
  if (mo->allocSite) {
    if (auto *gv = dyn_cast<GlobalVariable>(mo->allocSite))
      return {gv->getValueType(), 0};
    if (auto *ai = dyn_cast<AllocaInst>(mo->allocSite))
      return {ai->getAllocatedType(), 0};
  }
  auto c = ctx.castTypes.find(mo->id);
  return c == ctx.castTypes.end() ? ObjectType{} : c->second;
}

ObjectType KleeStateView::typeOf(const klee::MemoryObject *mo) const { return objectType(ctx, mo); }

/// Distinct subexpressions looked at to tell where a symbolic value comes from.
constexpr unsigned MaxAddressNodes = 4096;

/// Whether a symbolic value may be built from an address, and how: `Constant` when it has
/// a pointer-wide constant in it that is an object's or a function's address (pointer
/// arithmetic on symbolic input keeps its base: `base + 4 * i`); `Memory` when it only
/// reads memory that may hold one: an object's concrete contents (a constant array: what
/// a load at a symbolic index from a table of pointers reads) or bytes written since the
/// array was made (its update list). Symbolic input bytes alone (reads of a symbolic array
/// nobody wrote) hold no address (`None`). An expression of over MaxAddressNodes distinct
/// subexpressions is assumed to hold a constant one (conservative: it is then resolved).
KleeStateView::AddressSource KleeStateView::holdsAddress(const klee::ref<klee::Expr> &e) const {
  unsigned width = klee::Context::get().getPointerWidth();
  std::vector<klee::ref<klee::Expr>> work{e};
  // Walked as the DAG it is, each shared subexpression once: make's file timestamps
  // (arithmetic on the symbolic stat's mtime, sharing its subexpressions) read as trees
  // went past the old bound of 256 visits, and each was resolved by the solver as an
  // address: most of make's reading time.
  llvm::SmallPtrSet<const klee::Expr *, 32> seen;
  AddressSource found = AddressSource::None;
  while (!work.empty()) {
    klee::ref<klee::Expr> x = work.back();
    work.pop_back();
    if (!seen.insert(x.get()).second)
      continue;
    if (seen.size() > MaxAddressNodes)
      return AddressSource::Constant;
    if (auto *ce = dyn_cast<klee::ConstantExpr>(x)) {
      if (ce->getWidth() != width)
        continue;
      std::uint64_t v = ce->getZExtValue();
      klee::ObjectPair op;
      if (v && (ctx.executor->getFunctionAt(v) || state.addressSpace.resolveOne(ce, op)))
        return AddressSource::Constant;
      continue;
    }
    if (auto *re = dyn_cast<klee::ReadExpr>(x))
      if (re->updates.root->isConstantArray() || re->updates.head)
        found = AddressSource::Memory;
    for (unsigned i = 0; i < x->getNumKids(); ++i)
      work.push_back(x->getKid(i));
  }
  return found;
}

WordTarget wordTarget(const ReadContext &ctx, const klee::AddressSpace &space, std::uint64_t lo, std::uint64_t hi,
                      std::uint64_t v, klee::MemoryObject &probe) {
  // The first page is never mapped: small values (counts, flags, null) are integers. Most
  // words read are such; they cost no lookup.
  if (v < 4096)
    return {WordTarget::Integer, 0, 0};
  // The object holding v, as AddressSpace::resolveOne finds it, without building a
  // ConstantExpr per word (a tenth of the reading time). Objects first: most addresses in
  // memory are data pointers.
  // Outside the bound objects' span: a function's address (KLEE does not bind those) or
  // an integer.
  if (v >= lo && v < hi) {
    if (const klee::MemoryObject *mo = objectHolding(space, v, probe)) {
      if (mo->allocSite && isa<Function>(mo->allocSite))
        return {WordTarget::Function, reinterpret_cast<std::uint64_t>(mo->allocSite), 0};
      return {WordTarget::Object, mo->id, v - mo->address, mo};
    }
  }
  if (Function *fn = ctx.executor->getFunctionAt(v))
    return {WordTarget::Function, reinterpret_cast<std::uint64_t>(fn), 0};
  return {WordTarget::Unresolved, 0, 0}; // an object allocated there later would make it a pointer
}

/// A concrete pointer-sized value: null, a function's address, an address in an object,
/// or an integer (no target).
bool KleeStateView::concreteTarget(std::uint64_t v, Targets &out) const {
  // One probe object, moved: constructing one per word would use up KLEE's object ids (a
  // signed int counter) in a long run.
  push(wordTarget(ctx, state.addressSpace, objLo, objHi, v, probe), v, out);
  return true;
}

void KleeStateView::push(const WordTarget &t, std::uint64_t v, Targets &out) const {
  switch (t.kind) {
  case WordTarget::Integer:
    break;
  case WordTarget::Object:
    known.try_emplace(t.a, t.mo);
    out.push_back(pspa::TargetFfi{pspa::TargetKind::Object, t.a, t.b, true, 0, 0});
    break;
  case WordTarget::Function:
    out.push_back(pspa::TargetFfi{pspa::TargetKind::Function, 0, 0, false, static_cast<std::size_t>(t.a), 0});
    break;
  case WordTarget::Unresolved:
    if (recording)
      unresolved.push_back(v);
    break;
  }
}

bool KleeStateView::targets(klee::ref<klee::Expr> e, bool pointerTyped, Targets &out) const {
  if (auto *ce = dyn_cast<klee::ConstantExpr>(e)) {
    ctx.reads.concrete++;
    return concreteTarget(ce->getZExtValue(), out);
  }
  AddressSource source = holdsAddress(e);
  if (source == AddressSource::None) {
    // Symbolic input with no address in it. Where the type says pointer, the program will
    // use it as one and it may equal any address: an unknown target keeps the clients
    // conservative for everything it may reach. Elsewhere it is data (an input buffer, a
    // length): a program that turned such bytes into a pointer would go through a cast,
    // which gives the object a pointer-carrying type (section 5).
    if (pointerTyped) {
      ctx.reads.unknownTyped++;
      out.push_back(pspa::TargetFfi{pspa::TargetKind::Unknown, 0, 0, false, 0, 0});
    } else {
      ctx.reads.symbolicData++;
    }
    return true;
  }
  if (source == AddressSource::Memory && !pointerTyped) {
    // A slot not typed as a pointer whose value only reads memory (a table, bytes written
    // at symbolic offsets): an address there would be one the program stored as an
    // integer. Resolving it asks the solver object by object (libtiff's directory fields
    // read from the file took 1 s each, to find no object); an unknown target is the
    // conservative answer, and changes nothing where the program never uses the field
    // as a pointer.
    ctx.reads.unknownUntyped++;
    out.push_back(pspa::TargetFfi{pspa::TargetKind::Unknown, 0, 0, false, 0, 0});
    return true;
  }
  // A symbolic address: every object it may point into (KLEE's own resolution), at an
  // unknown offset. Too many candidates, or a timeout: an unknown target, not a failure.
  ctx.reads.symbolicAddress++;
  // Given up on before (ReadContext::givenUp): again, until the path has twice the
  // constraints it had then (and 16 more), which may narrow it.
  std::size_t constraints = state.constraints.size();
  // A strike on `x` (ReadContext::givenUp).
  auto strike = [&](const klee::ref<klee::Expr> &x, unsigned strikes) {
    if (ctx.givenUp.size() >= MaxGivenUp)
      ctx.givenUp.clear();
    GivenUp &g = ctx.givenUp[x];
    g.strikes += strikes;
    g.constraints = constraints;
  };
  // This call's answer holds an unknown target from here on: its slow resolutions bought
  // no precision, and strike (KleeStateView::slowResolved).
  auto answerUnknown = [&] {
    if (unknownRead)
      return;
    unknownRead = true;
    for (const klee::ref<klee::Expr> &slow : slowResolved)
      strike(slow, 1);
    slowResolved.clear();
  };
  if (auto it = ctx.givenUp.find(e);
      it != ctx.givenUp.end() && it->second.strikes >= GivenUp::Strikes && constraints < 2 * it->second.constraints + 16) {
    answerUnknown();
    ctx.reads.unknownGivenUp++;
    out.push_back(pspa::TargetFfi{pspa::TargetKind::Unknown, 0, 0, false, 0, 0});
    return true;
  }
  // A strike: a timeout, or the budget spent before (either may pass when the solver's
  // caches are warm); `strikes` of them at once: too many targets, which do not.
  auto giveUp = [&](unsigned strikes) {
    strike(e, strikes);
    answerUnknown();
  };
  // The call's reading budget: a buffer of symbolically written bytes has thousands of
  // such slots, each a resolution (make's 64 KiB xcalloc buffer held KLEE for minutes).
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(resolving).count();
  if (elapsed >= PspaMaxReadMillis) {
    giveUp(1);
    ctx.reads.unknownBudget++;
    out.push_back(pspa::TargetFfi{pspa::TargetKind::Unknown, 0, 0, false, 0, 0});
    return true;
  }
  klee::ResolutionList rl;
  klee::TimingSolver *solver = &ctx.host->ownSolver();
  // KLEE's scan asks the solver object after object; a wide address could take minutes,
  // and KLEE cannot stop a run while a plugin hook runs: bounded, then unknown.
  auto t0 = std::chrono::steady_clock::now();
  OwnQueries counted;
  // resolve() checks its time between queries only: each query is bounded too, by what is
  // left of this resolution's time and of the call's (a timed-out query leaves the
  // resolution incomplete: an unknown target, as past the time). One query of 3.5 s was
  // 18 % of make's analysis, for an address that ended unknown all the same.
  auto budget = std::min<std::int64_t>(PspaMaxResolveMillis, std::int64_t(PspaMaxReadMillis) - elapsed);
  solver->setTimeout(klee::time::milliseconds(std::max<std::int64_t>(budget, 1)));
  bool incomplete = state.addressSpace.resolve(state, solver, e, rl, PspaMaxResolutions,
                                               klee::time::Span(std::to_string(PspaMaxResolveMillis) + "ms"));
  // The plugin's other queries (resolution's comparisons) keep their own bounds.
  solver->setTimeout(klee::time::Span());
  resolving += std::chrono::steady_clock::now() - t0;
  if (incomplete || rl.size() >= PspaMaxResolutions) {
    ctx.reads.unknownTooMany++;
    giveUp(rl.size() >= PspaMaxResolutions ? GivenUp::Strikes : 1);
    out.push_back(pspa::TargetFfi{pspa::TargetKind::Unknown, 0, 0, false, 0, 0});
    return true;
  }
  // Slow: a strike now if the answer holds an unknown target already, or later if it comes
  // to; it keeps the strikes it has (they came from calls it did not help).
  bool slow = std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(PspaSlowResolveMillis);
  if (slow && unknownRead)
    strike(e, 1);
  else if (slow)
    slowResolved.push_back(e);
  else
    ctx.givenUp.erase(e);
  for (auto &p : rl) {
    // A function's object is code: the target is the function (a symbolic choice between
    // callbacks), which the analysis binds at indirect calls.
    if (p.first->allocSite && isa<Function>(p.first->allocSite)) {
      out.push_back(pspa::TargetFfi{pspa::TargetKind::Function, 0, 0, false, reinterpret_cast<std::size_t>(p.first->allocSite), 0});
      continue;
    }
    known[p.first->id] = p.first;
    out.push_back(pspa::TargetFfi{pspa::TargetKind::Object, p.first->id, 0, false, 0, 0});
  }
  return true;
}

bool concreteWords(const ReadContext &ctx, const klee::AddressSpace &space, std::uint64_t lo, std::uint64_t hi,
                   const klee::MemoryObject *mo, const klee::ObjectState *os, klee::MemoryObject &probe,
                   std::vector<ReadCache::Word> &out, std::vector<std::uint32_t> *symbolic) {
  unsigned bytes = klee::Context::get().getPointerWidth() / 8;
  for (unsigned off = 0; off + bytes <= mo->size; off += bytes) {
    std::uint64_t word = 0;
    if (!os->readConcrete(off, bytes, reinterpret_cast<std::uint8_t *>(&word))) {
      if (!symbolic)
        return false;
      symbolic->push_back(off);
      continue;
    }
    WordTarget t = wordTarget(ctx, space, lo, hi, word, probe);
    if (t.kind != WordTarget::Integer)
      out.push_back(ReadCache::Word::of(off, t, word));
  }
  return true;
}

bool KleeStateView::sameWords(const klee::MemoryObject *mo, const klee::ObjectState *os,
                              const ReadCache::Entry &kept) const {
  std::vector<ReadCache::Word> now;
  std::vector<std::uint32_t> symbolic;
  bool same = concreteWords(ctx, state.addressSpace, objLo, objHi, mo, os, probe, now, &symbolic) &&
              now == kept.words && symbolic == kept.symbolic;
  ctx.cache.verified++;
  if (!same && ctx.cache.mismatches++ == 0)
    klee::klee_warning("pspa: the read cache gave object %u other words than its contents now hold "
                       "(counted in the done lines; the words read are used)",
                       mo->id);
  return same;
}

bool KleeStateView::stillTargets(const ReadCache::Entry &e) const {
  const klee::MemoryObject *last = nullptr;
  for (const ReadCache::Word &w : e.words) {
    switch (w.kind) {
    case WordTarget::Object:
      // Bound objects are disjoint: while `w.mo` is bound the word's address is in it and
      // in no other object. Looked up by the object (its address), then checked to be it:
      // another object may sit where a freed one was.
      if (w.mo != last) {
        const auto *res = state.addressSpace.objects.lookup(w.mo);
        if (!res || res->first != w.mo)
          return false;
        last = w.mo;
      }
      break;
    case WordTarget::Unresolved:
      // No object held the word: one allocated there since would make it a pointer.
      if (w.a >= objLo && w.a < objHi && objectHolding(state.addressSpace, w.a, probe))
        return false;
      break;
    case WordTarget::Function: // code is never unbound
    case WordTarget::Integer:  // not kept
      break;
    }
  }
  ctx.cache.rebound++;
  return true;
}

bool KleeStateView::pointer_slots(std::uint64_t id) const {
  Targets &v = slotBuf;
  v.clear();
  const klee::MemoryObject *mo = find(id);
  if (!mo)
    return false;
  if (mo->allocSite && isa<Function>(mo->allocSite))
    return true; // code, not data
  // An object met in this state always has its contents here; if not, the state is not
  // what the view believes, and the call must fail rather than be analysed without them.
  const klee::ObjectState *os = state.addressSpace.findObject(mo);
  if (!os)
    return false;
  // Recorded for LastAnswers: what the core is given of it.
  RecordedRead *rec = nullptr;
  if (recording) {
    readMos.push_back(RecordedRead{mo, os->writeStamp(), static_cast<std::uint32_t>(slots.size()), 0, true});
    rec = &readMos.back();
  }
  // One word as the core gets it (an integer gives nothing).
  // Targets go into `v` flat, each with its word's offset: a vector per word was an
  // allocation (and a free) per pointer read, a fifth of the view's time.
  // The targets pushed since `from` belong to the word at `off`.
  auto slotted = [&](std::size_t from, std::uint32_t off) {
    for (std::size_t i = from; i < v.size(); ++i)
      v[i].slot = off;
  };
  auto give = [&](std::uint32_t off, const WordTarget &t, std::uint64_t word) {
    std::size_t before = v.size();
    push(t, word, v);
    slotted(before, off);
    if (rec && (t.kind == WordTarget::Object || t.kind == WordTarget::Function))
      slots.push_back(RecordedSlot{off, static_cast<std::uint64_t>(t.kind), t.a, t.b});
  };
  const std::uint64_t writeStamp = os->writeStamp(), fingerprint = state.addressSpace.boundFingerprint();
  unsigned width = klee::Context::get().getPointerWidth();
  unsigned bytes = width / 8;
  const DataLayout &dl = ctx.module->getDataLayout();
  // Its type matters only to a symbolic word (typeOf looks it up).
  ObjectType type;
  bool typed = false;
  // A symbolic word, read afresh: its targets depend on the path's constraints, and its
  // type on the casts learned so far.
  auto symbolicWord = [&](unsigned off) {
    if (!typed) {
      type = typeOf(mo);
      typed = true;
    }
    std::size_t before = v.size();
    // A header's words are not the type's.
    bool pointerTyped = off >= type.offset && pointerAt(dl, type.type, off - type.offset);
    if (!targets(os->read(off, width), pointerTyped, v))
      return false;
    slotted(before, off);
    if (rec)
      rec->concrete = false;
    return true;
  };
  auto kept = ctx.cache.byObject.find(id);
  if (kept != ctx.cache.byObject.end() && kept->second.writeStamp == writeStamp &&
      (kept->second.fingerprint == fingerprint || stillTargets(kept->second)) &&
      (!ctx.cache.verify || sameWords(mo, os, kept->second))) {
    // Held with these bound objects too: the next look in this address space is short.
    kept->second.fingerprint = fingerprint;
    ctx.reads.cachedObjects++;
    const ReadCache::Entry &e = kept->second;
    if (!e.symbolic.empty())
      ctx.cache.symbolicAgain++;
    // In offset order, as a read gives them.
    std::size_t si = 0;
    for (const ReadCache::Word &w : e.words) {
      for (; si < e.symbolic.size() && e.symbolic[si] < w.offset; ++si)
        if (!symbolicWord(e.symbolic[si]))
          return false;
      give(w.offset, WordTarget{w.kind, w.a, w.b, w.mo}, w.kind == WordTarget::Unresolved ? w.a : 0);
    }
    for (; si < e.symbolic.size(); ++si)
      if (!symbolicWord(e.symbolic[si]))
        return false;
    if (rec)
      rec->to = slots.size();
    return true;
  }
  ReadCache::Entry entry{writeStamp, fingerprint, {}, {}};
  for (unsigned off = 0; off + bytes <= mo->size; off += bytes) {
    std::uint64_t word = 0;
    // Concrete bytes straight from KLEE's concrete store (host byte order, as KLEE keeps
    // it): no expression is built.
    if (os->readConcrete(off, bytes, reinterpret_cast<std::uint8_t *>(&word))) {
      ctx.reads.concrete++;
      WordTarget t = wordTarget(ctx, state.addressSpace, objLo, objHi, word, probe);
      if (ctx.cache.on && t.kind != WordTarget::Integer)
        entry.words.push_back(ReadCache::Word::of(off, t, word));
      give(off, t, word);
      continue;
    }
    if (ctx.cache.on)
      entry.symbolic.push_back(off);
    if (!symbolicWord(off))
      return false;
  }
  if (ctx.cache.on)
    ctx.cache.keep(id, std::move(entry));
  if (rec)
    rec->to = slots.size();
  return true;
}

} // namespace pspa_plugin
