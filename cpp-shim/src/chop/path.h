// What chopping keeps per path: the skipped calls pending on it (their snapshots), the
// recovery a recovery state serves, and which call wrote which bytes. The ordering rule
// of chopping lives here (PathState::written), and only here.
#pragma once

#include "clients.h"
#include "stamps.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Memory.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace pspa_plugin::chop {

/// Per byte of an object, the newest write a path knows of, as a stamp: a byte is newer
/// than pending skip q (written after q's call in program order) iff its stamp > q's seq.
/// Shared between a path, its forks and its snapshots until one of them writes it.
using Stamps = std::vector<unsigned>;
using StampMap = StampTable<const klee::MemoryObject *>;

/// Whether byte `i` of `mo` was written after the skip numbered `seq`, per `m`.
inline bool newerIn(const StampMap &m, unsigned seq, const klee::MemoryObject *mo, std::uint64_t i) {
  const Stamps *st = m.find(mo);
  return st && i < st->size() && (*st)[i] > seq;
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
  /// The path's pending skips when this call was skipped, and its write stamps then (its
  /// recovery's).
  std::vector<Pending> before;
  StampMap stamps;
  Answer answer;
  bool analysed = false;
  /// mayEnd's answer (-1: not asked yet).
  int mayEnd = -1;
  /// mayFree's answers by object id: it is asked at every write into an older object.
  std::unordered_map<std::uint64_t, bool> mayFreeOf;
  /// Whether the call may write any byte of an object, by object id: with many calls
  /// pending, every access asks each of them, and most objects are outside each mod set.
  std::unordered_map<std::uint64_t, bool> mayWriteAnyOf;
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
  /// The ordering rule's memory: per object, each byte's newest write (see Stamps). Kept
  /// per path, not per pending skip: a path with a thousand skips pending (a free-like
  /// function called per node) copied a thousand byte maps at every fork and snapshot.
  StampMap stamps;
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
  bool holdsHuge = false; // it allocated an object of hugeObjectBytes or more: no more skips

  /// Whether byte `i` of `mo` was written after pending skip `q`'s call (program order).
  bool newer(const Pending &q, const klee::MemoryObject *mo, std::uint64_t i) const {
    return newerIn(stamps, q.snap->seq, mo, i);
  }
  /// The oldest stamp among bytes [off, off + n) of `mo` (0: one was never written): the
  /// bytes were all written after pending skip q's call iff it is > q's seq.
  unsigned minStamp(const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t n) const {
    const Stamps *st = stamps.find(mo);
    if (!st)
      return 0;
    unsigned m = std::numeric_limits<unsigned>::max();
    for (std::uint64_t i = off; i < off + n; ++i)
      m = std::min(m, i < st->size() ? (*st)[i] : 0u);
    return m;
  }
  /// Whether any byte of `mo` was written after `q`'s call.
  bool anyNewer(const Pending &q, const klee::MemoryObject *mo) const {
    const Stamps *st = stamps.find(mo);
    if (!st)
      return false;
    for (unsigned b : *st)
      if (b > q.snap->seq)
        return true;
    return false;
  }

  /// The ordering rule. Bytes [off, off + n) of `mo` now hold the write of call `by`
  /// (`PathWrite`: the path's own). In program order that write comes after the pending
  /// skips older than `by` and before the younger ones: it is newer than the first (their
  /// recoveries must not bring their bytes over it), not than the second. As a stamp: `by`
  /// itself, or for the path's own write one more than the youngest pending skip's seq
  /// (skips taken later have larger seqs, so the write is older than them).
  void newerThanPending(const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t n, unsigned by) {
    unsigned stamp = by;
    if (by == PathWrite)
      stamp = pending.empty() ? 0 : pending.back().snap->seq + 1;
    if (stamp == 0)
      return; // no pending skip: nothing it could be newer than
    Stamps &st = stamps.own(mo); // copied first if a fork or a snapshot shares it
    if (st.size() < mo->size)
      st.resize(mo->size, 0);
    for (std::uint64_t i = off; i < off + n && i < mo->size; ++i)
      st[i] = std::max(st[i], stamp);
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
  /// With no skip pending the stamps can go: a later skip's seq is at least any of them,
  /// so they could never make a byte newer than it.
  void dropStampsIfIdle() {
    if (pending.empty() && !recovery)
      stamps.clear();
  }
  /// Drops the recorded effects no pending skip needs: one is kept while a pending skip's
  /// snapshot predates the call (it was pending then).
  void dropUnneededEffects() {
    for (auto it = effects.begin(); it != effects.end();)
      it = predatesPendingSnapshot(it->first) ? std::next(it) : effects.erase(it);
  }
  /// Whether call `c` was pending when a skip still pending was taken. Those skips were
  /// taken after c's and before c's recovery: they are consecutive in `pending`, so the
  /// first one younger than c tells (its `before`, oldest first, is searched). Asking every
  /// pending skip was quadratic with a thousand pending.
  bool predatesPendingSnapshot(unsigned c) const {
    auto q = std::upper_bound(pending.begin(), pending.end(), c,
                              [](unsigned seq, const Pending &p) { return seq < p.snap->seq; });
    if (q == pending.end())
      return false;
    const std::vector<Pending> &b = q->snap->before;
    auto at = std::lower_bound(b.begin(), b.end(), c, [](const Pending &p, unsigned seq) { return p.snap->seq < seq; });
    return at != b.end() && at->snap->seq == c;
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
  /// Per call line: skips and recoveries (--skip-functions=auto decides per call site).
  std::map<unsigned, std::pair<std::uint64_t, std::uint64_t>> bySite;
  /// Recoveries read inside a call that began after the skipped one: skipping that call
  /// would have skipped the read, so --skip-functions=auto lets a unit whose stop is due go
  /// on when the calls holding most of its recoveries get skipped. Keyed by (the skipped
  /// call's line, the function of the call holding the read, the line it was called from),
  /// each also counted under ~0u (every line) in either place.
  std::map<std::tuple<unsigned, const llvm::Function *, unsigned>, std::uint64_t> recoveredInside;
};

} // namespace pspa_plugin::chop
