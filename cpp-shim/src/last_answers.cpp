// See last_answers.h.
#include "last_answers.h"

#include "lib/Core/AddressSpace.h"
#include "lib/Core/ExecutionState.h"
#include "lib/Core/Memory.h"

#include <algorithm>
#include <tuple>
#include <cstring>

namespace pspa_plugin {

namespace {
bool onlyConcrete(const ReadStats &a, const ReadStats &b) {
  return a.symbolicAddress == b.symbolicAddress && a.symbolicData == b.symbolicData &&
         a.unknownTyped == b.unknownTyped && a.unknownTooMany == b.unknownTooMany &&
         a.unknownUntyped == b.unknownUntyped && a.unknownBudget == b.unknownBudget &&
         a.unknownGivenUp == b.unknownGivenUp;
}

/// The object bound in `space` holding address `v`, with its contents (null, null if none).
std::pair<const klee::MemoryObject *, const klee::ObjectState *>
boundAt(const klee::AddressSpace &space, std::uint64_t v, klee::MemoryObject &probe) {
  probe.address = v;
  const auto *res = space.objects.lookup_previous(&probe);
  if (!res)
    return {nullptr, nullptr};
  const klee::MemoryObject *mo = res->first;
  if ((mo->size == 0 && v == mo->address) || v - mo->address < mo->size)
    return {mo, res->second.get()};
  return {nullptr, nullptr};
}

/// One probe object for the lookups (each MemoryObject made takes one of KLEE's ids).
klee::MemoryObject &probe() {
  static klee::MemoryObject p(0);
  return p;
}
} // namespace

bool LastAnswers::argKey(const klee::ExecutionState &state, const ReadContext &ctx,
                         const std::vector<klee::ref<klee::Expr>> &args, std::vector<Slot> &out) {
  out.clear();
  const unsigned width = klee::Context::get().getPointerWidth();
  for (const klee::ref<klee::Expr> &a : args) {
    // KleeStateView::arg: a value of another width gives the core nothing, symbolic or not.
    if (a->getWidth() != width) {
      out.push_back(Slot{0, WordTarget::Integer, 0, 0});
      continue;
    }
    // A symbolic one is read through the path's constraints: such a call is never kept.
    auto *ce = llvm::dyn_cast<klee::ConstantExpr>(a);
    if (!ce)
      return false;
    std::uint64_t v = ce->getZExtValue();
    // wordTarget over every address (no span: outside it no object holds v anyway).
    WordTarget t = wordTarget(ctx, state.addressSpace, 0, ~std::uint64_t(0), v, probe());
    switch (t.kind) {
    case WordTarget::Integer:
      out.push_back(Slot{0, WordTarget::Integer, 0, 0});
      break;
    case WordTarget::Unresolved:
      // No target now, one if an object is allocated at v: the value itself.
      out.push_back(Slot{0, WordTarget::Unresolved, v, 0});
      break;
    default:
      out.push_back(Slot{0, static_cast<std::uint64_t>(t.kind), t.a, t.b});
    }
  }
  return true;
}

bool LastAnswers::made(ArgKey &key, const klee::ExecutionState &state, const ReadContext &ctx) {
  if (!key.made) {
    key.made = true;
    key.concrete = argKey(state, ctx, key.args, key.slots);
    key.hash = hashOf(key.slots);
  }
  return key.concrete;
}

std::uint64_t LastAnswers::hashOf(const std::vector<Slot> &key) {
  // Mixed: KLEE's allocator gives addresses whose low 32 bits are often equal (libtasn1's
  // nodes collided in one bucket when hashed by Expr::hash()).
  std::uint64_t h = key.size();
  for (const Slot &s : key)
    for (std::uint64_t v : {s.kind, s.a, s.b}) {
      h = (h ^ v) * 0x9E3779B97F4A7C15ull;
      h ^= h >> 29;
    }
  return h;
}

bool LastAnswers::slotsOf(const klee::ExecutionState &state, std::pair<std::uint64_t, std::uint64_t> span,
                          const ReadContext &ctx, const klee::MemoryObject *mo, const klee::ObjectState *os,
                          std::vector<Slot> &out, std::vector<std::uint64_t> &unresolved) {
  // KleeStateView::pointer_slots' words, by the same rule (wordTarget).
  std::vector<ReadCache::Word> words;
  if (!concreteWords(ctx, state.addressSpace, span.first, span.second, mo, os, probe(), words))
    return false;
  for (const ReadCache::Word &w : words) {
    if (w.kind == WordTarget::Unresolved)
      unresolved.push_back(w.a);
    else
      out.push_back(Slot{w.offset, static_cast<std::uint64_t>(w.kind), w.a, w.b});
  }
  return true;
}

bool LastAnswers::holds(Entry &e, const klee::ExecutionState &state, const ReadContext &ctx) {
  std::vector<Slot> now;
  std::vector<std::uint64_t> integers;
  const std::uint64_t fingerprint = state.addressSpace.boundFingerprint();
  const bool sameObjects = e.fast && fingerprint == e.fingerprint && ctx.castTypesLearned == e.castsLearned;
  if (sameObjects)
    ++sameBound;
  // The bound objects' span, once per check that needs it (a walk to both ends of KLEE's
  // object map).
  std::pair<std::uint64_t, std::uint64_t> span{0, 0};
  bool spanKnown = false;
  // The objects read first: a write since shows there soonest.
  for (Read &r : e.read) {
    const Met &m = e.met[r.met];
    const klee::MemoryObject *mo = m.mo;
    const klee::ObjectState *os = nullptr;
    if (sameObjects) {
      // Bound, unless two fingerprints collided (2^-64): then the long way's answer.
      os = state.addressSpace.findObject(mo);
      if (!os)
        return false;
    } else {
      std::tie(mo, os) = boundAt(state.addressSpace, m.address, probe());
      // The same object (ids are never reused), with the same type.
      if (!mo || !os || mo->id != m.id || mo->address != m.address || objectType(ctx, mo) != m.type)
        return false;
    }
    if (os->writeStamp() == r.stamp)
      continue;
    if (!spanKnown) {
      span = boundSpan(state.addressSpace);
      spanKnown = true;
    }
    // Written since (perhaps in another state, or only its data): compare its targets.
    now.clear();
    integers.clear();
    if (!slotsOf(state, span, ctx, mo, os, now, integers) ||
        !std::equal(now.begin(), now.end(), e.slots.begin() + r.from, e.slots.begin() + r.to))
      return false;
    // Later states are compared against these contents from now on (whatever the rest of
    // this check finds), so their integers join at once those that must stay no object's.
    // Compared with other bound objects than the entry's fingerprint says, their targets
    // hold for those objects only: the short way is off until a whole check succeeds (a
    // check that fails here or later would otherwise leave a stamp the short way trusts
    // in a state where one of these integers is an object's address).
    if (!sameObjects)
      e.fast = false;
    r.stamp = os->writeStamp();
    ++compared;
    if (!integers.empty()) {
      e.unresolved.insert(e.unresolved.end(), integers.begin(), integers.end());
      std::sort(e.unresolved.begin(), e.unresolved.end());
      e.unresolved.erase(std::unique(e.unresolved.begin(), e.unresolved.end()), e.unresolved.end());
    }
  }
  // With the entry's bound objects and types, the met objects are where they were, as
  // they were, and no object was allocated at an unresolved word.
  if (sameObjects)
    return true;
  for (const Met &m : e.met) {
    if (m.read != npos)
      continue;
    auto [mo, os] = boundAt(state.addressSpace, m.address, probe());
    if (!mo || mo->id != m.id || mo->address != m.address || objectType(ctx, mo) != m.type)
      return false;
  }
  // A word that was no address may be one now: an object allocated there since. Only
  // words within the bound objects' span can be (a lookup each).
  if (!e.unresolved.empty()) {
    if (!spanKnown)
      span = boundSpan(state.addressSpace);
    auto [lo, hi] = span;
    for (auto it = std::lower_bound(e.unresolved.begin(), e.unresolved.end(), lo);
         it != e.unresolved.end() && *it < hi; ++it)
      if (objectHolding(state.addressSpace, *it, probe()))
        return false;
  }
  // It holds in this state: later checks in states with these bound objects take the
  // short way.
  e.fingerprint = fingerprint;
  e.castsLearned = ctx.castTypesLearned;
  e.fast = true;
  return true;
}

void LastAnswers::erase(Lru::iterator it) {
  auto fit = byFunction.find(it->f);
  fit->second.byArgs.erase(it->argsHash);
  fit->second.order.erase(it->inFunction);
  fit->second.bytes -= it->accounted;
  if (fit->second.byArgs.empty())
    byFunction.erase(fit);
  bytes -= it->accounted;
  lru.erase(it);
}

const LastAnswers::Hit *LastAnswers::find(const klee::ExecutionState &state, llvm::Function *f,
                                          ArgKey &args, const ReadContext &ctx) {
  auto fit = byFunction.find(f);
  if (fit == byFunction.end() || !made(args, state, ctx))
    return nullptr;
  auto it = fit->second.byArgs.find(args.hash);
  if (it == fit->second.byArgs.end() || it->second->args != args.slots || !holds(*it->second, state, ctx))
    return nullptr;
  ++yields[f].hits;
  lru.splice(lru.begin(), lru, it->second);
  fit->second.order.splice(fit->second.order.begin(), fit->second.order, it->second->inFunction);
  return &it->second->hit;
}

bool LastAnswers::worthRecording(llvm::Function *f, bool anyway) {
  if (anyway) {
    yields[f].triedAnyway();
    return true;
  }
  bool worth = yields[f].tryNow();
  lowYieldSkips += !worth;
  return worth;
}

void LastAnswers::remember(const klee::ExecutionState &state, llvm::Function *f,
                           ArgKey &args, const KleeStateView &view, const ReadContext &ctx,
                           const ReadStats &before, Answer answer, const pspa::CallReport &report) {
  // Symbolic arguments: the answer depends on the path (and their reads were symbolic).
  if (!made(args, state, ctx))
    return;
  std::uint64_t h = args.hash;
  // The entry for these arguments (or another's with the same hash) gives way.
  auto fit = byFunction.find(f);
  if (fit != byFunction.end()) {
    auto it = fit->second.byArgs.find(h);
    if (it != fit->second.byArgs.end())
      erase(it->second);
  }
  if (!answer || !view.recorded() || !onlyConcrete(before, ctx.reads))
    return;
  Entry e;
  e.f = f;
  e.argsHash = h;
  e.args = args.slots;
  // The arguments' own (an integer argument an object allocated there would make a pointer).
  e.unresolved = view.unresolvedWords();
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (const klee::MemoryObject *mo : view.metObjects())
    if (index.emplace(mo->id, e.met.size()).second)
      e.met.push_back(Met{mo->address, mo->id, mo, objectType(ctx, mo), npos});
  const std::vector<RecordedSlot> &given = view.recordedSlots();
  for (const KleeStateView::RecordedRead &rr : view.readObjects()) {
    auto i = index.find(rr.mo->id);
    // Read objects are met first (memory_graph.rs); all concrete, or nothing is kept.
    if (i == index.end() || !rr.concrete)
      return;
    if (e.met[i->second].read != npos)
      continue; // the core may ask for an object twice
    e.met[i->second].read = e.read.size();
    e.read.push_back(Read{i->second, static_cast<std::uint32_t>(e.slots.size()), 0, rr.stamp});
    e.slots.insert(e.slots.end(), given.begin() + rr.from, given.begin() + rr.to);
    e.read.back().to = e.slots.size();
  }
  std::sort(e.unresolved.begin(), e.unresolved.end());
  e.unresolved.erase(std::unique(e.unresolved.begin(), e.unresolved.end()), e.unresolved.end());
  e.fingerprint = state.addressSpace.boundFingerprint();
  e.castsLearned = ctx.castTypesLearned;
  e.hit = Hit{std::move(answer), report};
  e.accounted = e.cost();
  bytes += e.accounted;
  lru.push_front(std::move(e));
  Entries &mine = byFunction[f];
  mine.byArgs[h] = lru.begin();
  mine.order.push_front(lru.begin());
  lru.front().inFunction = mine.order.begin();
  mine.bytes += lru.front().accounted;
  // The function's least recently used entries, while it holds more than its share (the
  // one just made goes too when it alone is over it: then `mine` goes with it).
  while (mine.byArgs.size() > MaxPerFunction || mine.bytes > MaxFunctionBytes) {
    bool last = mine.byArgs.size() == 1;
    erase(mine.order.back());
    if (last)
      break;
  }
  while (bytes > MaxBytes && !lru.empty())
    erase(std::prev(lru.end()));
}

} // namespace pspa_plugin
