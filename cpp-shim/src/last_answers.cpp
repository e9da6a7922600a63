// See last_answers.h.
#include "last_answers.h"

#include "lib/Core/AddressSpace.h"
#include "lib/Core/ExecutionState.h"
#include "lib/Core/Memory.h"

#include <algorithm>
#include <cstring>

namespace pspa_plugin {

namespace {
bool onlyConcrete(const ReadStats &a, const ReadStats &b) {
  return a.symbolicAddress == b.symbolicAddress && a.symbolicData == b.symbolicData &&
         a.unknownTyped == b.unknownTyped && a.unknownTooMany == b.unknownTooMany &&
         a.unknownUntyped == b.unknownUntyped && a.unknownBudget == b.unknownBudget;
}
} // namespace

bool LastAnswers::holds(const Entry &e, const klee::ExecutionState &state,
                        const std::vector<klee::ref<klee::Expr>> &args, const ReadContext &ctx) const {
  if (args.size() != e.args.size())
    return false;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i] != e.args[i]) // structural: concrete values compare by value
      return false;
  // One probe object for the lookups (each MemoryObject takes an id).
  static klee::MemoryObject probe(0);
  std::vector<const klee::MemoryObject *> mos(e.met.size());
  for (std::size_t i = 0; i < e.met.size(); ++i) {
    const Met &m = e.met[i];
    const klee::MemoryObject *mo = objectHolding(state.addressSpace, m.address, probe);
    // The same object (ids are never reused), with the same type.
    if (!mo || mo->id != m.id || mo->address != m.address || objectType(ctx, mo) != m.type)
      return false;
    mos[i] = mo;
  }
  std::vector<std::uint8_t> buf;
  std::size_t at = 0;
  for (std::uint32_t i : e.read) {
    const klee::MemoryObject *mo = mos[i];
    const klee::ObjectState *os = state.addressSpace.findObject(mo);
    buf.resize(mo->size);
    if (!os || !os->readConcrete(0, mo->size, buf.data()) ||
        std::memcmp(buf.data(), e.bytes.data() + at, mo->size) != 0)
      return false;
    at += mo->size;
  }
  // A word that was no address may be one now: an object allocated there since. Only
  // words within the bound objects' span can be (a lookup each).
  if (!e.unresolved.empty()) {
    auto [lo, hi] = boundSpan(state.addressSpace);
    for (auto it = std::lower_bound(e.unresolved.begin(), e.unresolved.end(), lo);
         it != e.unresolved.end() && *it < hi; ++it)
      if (objectHolding(state.addressSpace, *it, probe))
        return false;
  }
  return true;
}

const LastAnswers::Hit *LastAnswers::find(const klee::ExecutionState &state, llvm::Function *f,
                                          const std::vector<klee::ref<klee::Expr>> &args,
                                          const ReadContext &ctx) const {
  auto it = last.find(f);
  if (it == last.end() || !holds(it->second, state, args, ctx))
    return nullptr;
  return &it->second.hit;
}

void LastAnswers::remember(const klee::ExecutionState &state, llvm::Function *f,
                           const std::vector<klee::ref<klee::Expr>> &args, const KleeStateView &view,
                           const ReadContext &ctx, const ReadStats &before, Answer answer,
                           const pspa::CallReport &report) {
  auto old = last.find(f);
  if (old != last.end()) {
    bytes -= old->second.bytes.size();
    last.erase(old);
  }
  if (!answer || !view.recorded() || !onlyConcrete(before, ctx.reads))
    return;
  Entry e;
  e.args = args;
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  for (const klee::MemoryObject *mo : view.metObjects())
    if (index.emplace(mo->id, e.met.size()).second)
      e.met.push_back(Met{mo->address, mo->id, objectType(ctx, mo)});
  std::uint64_t size = 0;
  {
    std::unordered_map<std::uint64_t, bool> seen;
    for (const klee::MemoryObject *mo : view.readObjects())
      if (seen.emplace(mo->id, true).second)
        size += mo->size;
  }
  if (size > MaxEntryBytes)
    return;
  e.bytes.resize(size);
  std::size_t at = 0;
  std::unordered_map<std::uint64_t, bool> seen; // the core may ask for an object twice
  for (const klee::MemoryObject *mo : view.readObjects()) {
    if (!seen.emplace(mo->id, true).second)
      continue;
    auto i = index.find(mo->id);
    const klee::ObjectState *os = state.addressSpace.findObject(mo);
    // Read objects are met first (memory_graph.rs); all concrete, or nothing is kept.
    if (i == index.end() || !os || !os->readConcrete(0, mo->size, e.bytes.data() + at))
      return;
    e.read.push_back(i->second);
    at += mo->size;
  }
  e.unresolved = view.unresolvedWords();
  std::sort(e.unresolved.begin(), e.unresolved.end());
  e.unresolved.erase(std::unique(e.unresolved.begin(), e.unresolved.end()), e.unresolved.end());
  if (bytes + size > MaxBytes) {
    last.clear();
    bytes = 0;
  }
  bytes += size;
  e.hit = Hit{std::move(answer), report};
  last.emplace(f, std::move(e));
}

} // namespace pspa_plugin
