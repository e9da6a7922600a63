// What chopping keeps per path: the skipped calls pending on it (their snapshots), the
// recovery a recovery state serves, and which call wrote which bytes. The ordering rule
// of chopping lives here (PathState::written), and only here.
#pragma once

#include "clients.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Memory.h"

#include <cassert>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace pspa_plugin::chop {

/// Bytes [off, off + n) of an object of `size` bytes are marked.
inline void mark(std::vector<bool> &bytes, std::size_t size, std::uint64_t off, std::uint64_t n) {
  if (bytes.size() < size)
    bytes.resize(size, false);
  for (std::uint64_t i = off; i < off + n && i < size; ++i)
    bytes[i] = true;
}

/// Whether bytes [off, off + n) are all marked.
inline bool allMarked(const std::vector<bool> *bytes, std::uint64_t off, std::uint64_t n) {
  if (!bytes)
    return false;
  for (std::uint64_t i = off; i < off + n; ++i)
    if (i >= bytes->size() || !(*bytes)[i])
      return false;
  return true;
}

/// A path stops waiting on a skipped call's result: KLEE asks beforeInstruction while
/// pluginWatch > 0, and each held result counts one.
inline void unwatch(klee::ExecutionState &s) {
  assert(s.pluginWatch > 0 && "pluginWatch balances: one per skipped call whose result is pending");
  --s.pluginWatch;
}

struct Snapshot;

/// A skipped call pending on a path.
struct Pending {
  std::shared_ptr<Snapshot> snap;
  /// The call's result is used and not known yet: its first use recovers the call.
  bool result = false;
  /// Per object (that existed at the skip), the bytes written after the skip.
  std::map<const klee::MemoryObject *, std::vector<bool>> newer;
};

/// A skipped call: the state at the call (never run itself) and what the call needs.
/// `seq` numbers skips in the order they happened, so it orders them in program order
/// along any one path.
struct Snapshot {
  unsigned seq = 0;
  llvm::Function *f = nullptr;
  klee::KInstruction *call = nullptr;
  std::vector<klee::ref<klee::Expr>> args;
  klee::ExecutionState *state = nullptr;
  std::uint64_t firstNew = 0;
  /// The path's pending skips when this call was skipped (its recovery's).
  std::vector<Pending> before;
  Answer answer;
  bool analysed = false;
  /// mayEnd's answer (-1: not asked yet).
  int mayEnd = -1;
  /// mayFree's answers by object id: it is asked at every write into an older object.
  std::unordered_map<std::uint64_t, bool> mayFreeOf;
  /// Whether the call could have touched `mo`: it existed when the call was skipped.
  bool saw(const klee::MemoryObject *mo) const { return mo->id < firstNew; }
  ~Snapshot() { delete state; }
};

/// A recovery: its paths (forks) and the path waiting for them.
struct Recovery {
  klee::ExecutionState *dependent = nullptr;
  std::shared_ptr<Snapshot> snap;
  std::size_t depth = 0;
  unsigned outstanding = 1;
  bool dependentGone = false;
  /// What made the path wait: a load of `bytes` at `off` of `trigger` (every byte when
  /// the offset is symbolic), or a free of it; null for a result's use or an external call.
  const klee::MemoryObject *trigger = nullptr;
  std::uint64_t off = 0;
  unsigned bytes = 0;
  bool known = false;
  bool judged = false; // whether the call turned out to write the trigger, counted once
};

/// What a recovered call did on one path: the bytes its recovery wrote (each with the call
/// whose write it holds: the call, or an older one recovered inside it), the objects it
/// allocated and those it freed. Replayed into a younger call's recovery whose snapshot
/// predates it, instead of running the call again there (effects.cpp).
struct Effect {
  unsigned seq = 0;          // the recovered call
  std::set<unsigned> covers; // it and the calls recovered inside it
  struct Byte {
    unsigned at;
    klee::ref<klee::Expr> value;
    unsigned by;
  };
  std::vector<std::pair<klee::ref<const klee::MemoryObject>, std::vector<Byte>>> wrote;
  std::vector<std::pair<klee::ref<const klee::MemoryObject>, klee::ref<klee::ObjectState>>> allocated;
  std::vector<klee::ref<const klee::MemoryObject>> freed;
};

/// The writer of a byte written by the path itself, not by a recovered call: younger than
/// every skip.
constexpr unsigned PathWrite = std::numeric_limits<unsigned>::max();

struct PathState {
  std::vector<Pending> pending; // oldest first
  /// Recovered calls' effects, by the seq of each call they cover (the call and those
  /// recovered inside it), kept while a pending skip's snapshot predates them.
  std::map<unsigned, std::shared_ptr<const Effect>> effects;
  std::shared_ptr<Recovery> recovery; // set in a recovery state
  /// A recovery state: the bytes its call wrote (objects of its snapshot), each with the
  /// seq of the call whose write it holds (0: not written): the call's own, or an older
  /// skip's recovered inside it; and the older skips recovered inside it.
  std::map<const klee::MemoryObject *, std::vector<unsigned>> wrote;
  std::set<unsigned> nested;
  bool runCall = false; // a recovery state about to run its call
  bool dead = false;    // its recoveries all ended in errors

  /// The ordering rule. Bytes [off, off + n) of `mo` now hold the write of call `by`
  /// (`PathWrite`: the path's own). In program order that write comes after the pending
  /// skips older than `by` and before the younger ones: it is newer than the first (their
  /// recoveries must not bring their bytes over it), not than the second.
  void newerThanPending(const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t n, unsigned by) {
    for (Pending &q : pending) {
      if (q.snap->seq >= by)
        break; // oldest first: the rest are younger too
      if (q.snap->saw(mo))
        mark(q.newer[mo], mo->size, off, n);
    }
  }
  /// A write the path made (or a recovered call's, brought into it): the ordering rule,
  /// and in a recovery state the bytes are also its call's writes, held by `by` (by the
  /// call itself for the path's own writes), for the waiting path to take.
  void written(const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t n, unsigned by) {
    newerThanPending(mo, off, n, by);
    if (recovery && recovery->snap->saw(mo)) {
      std::vector<unsigned> &w = wrote[mo];
      if (w.size() < mo->size)
        w.resize(mo->size, 0);
      for (std::uint64_t i = off; i < off + n && i < mo->size; ++i)
        w[i] = by == PathWrite ? recovery->snap->seq : by;
    }
  }
  /// Drops the recorded effects no pending skip needs: one is kept while a pending skip's
  /// snapshot predates the call (it was pending then).
  void dropUnneededEffects() {
    std::set<unsigned> needed;
    for (const Pending &q : pending)
      for (const Pending &b : q.snap->before)
        needed.insert(b.snap->seq);
    for (auto it = effects.begin(); it != effects.end();)
      it = needed.count(it->first) ? std::next(it) : effects.erase(it);
  }
};

/// Per function skipped: for chop.csv.
struct FunctionStats {
  std::uint64_t snapshots = 0, recoveries = 0, resultUsed = 0, dropped = 0;
  /// What skipping cost: copying the states (snapshots), analysing the skipped calls; and
  /// what recovering cost: the instructions the recovery states ran (every path of them).
  double snapshotSeconds = 0, analysisSeconds = 0;
  std::uint64_t recoveryInstructions = 0;
  std::map<std::string, std::uint64_t> triggers; // load location -> recoveries
};

} // namespace pspa_plugin::chop
