// Recent answers of each analysed function, and whether a state still holds what one of
// those analyses read: then the call gets that answer without reading the state again.
//
// An on-demand analysis is a function of what its view gave the core: the arguments, the
// objects it met (site, size, type) and the pointer slots it read. A later state whose
// arguments give the core the same targets (`argKey`: the core never looks at an integer
// argument's value, so it is not compared either), the same objects at the same addresses
// with the same types, the same targets in the slots of the objects read, and no object at
// any address those slots held that was no object's then (a stale pointer that a new object
// would make live), gives the same answer, whichever path it is on: what the core was given
// is compared, not states.
// Only analyses that read concrete words alone are kept (a symbolic address's targets
// depend on the path's constraints), with no pending skipped call on the path (their
// post-states join the state) and no post-state kept.
//
// Objects are compared by KLEE's write stamps first (ObjectState::writeStamp, from the
// patch: equal stamps of one object mean equal bytes), so that a state that wrote nothing
// the analysis read costs a lookup per object; an object written since (its stamp moved)
// has its words read again and their targets compared (libtasn1's decoder writes values
// and lengths into the nodes that its lookups walk through, never their links). In a state
// whose bound objects have the fingerprint of one the entry held in (the patch's
// AddressSpace::boundFingerprint), with no type learned since, the met objects and the
// words that were no address need no look: only the read objects' stamps (and the words of
// those written since). libtasn1's
// tree walks read 300-1,100 nodes a call, and most calls repeat an earlier one's: the same
// lookup by the same arguments over links nobody changed in between.
#ifndef PSPA_LAST_ANSWERS_H
#define PSPA_LAST_ANSWERS_H

#include "clients.h"
#include "state_view.h"

#include "klee/Expr/Expr.h"

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace klee {
class ExecutionState;
class MemoryObject;
} // namespace klee

namespace llvm {
class Function;
class Type;
} // namespace llvm

namespace pspa_plugin {

class LastAnswers {
public:
  /// What the entries may hold in all (their own bytes and the answers they keep alive),
  /// and what one function's may: beyond them the least recently used go. Per function,
  /// so that one whose calls do not repeat within its share (libtasn1's `_asn1_find_up`
  /// walks up from some 380 nodes in turn, each entry about 80 KB) does not push out
  /// another's that are asked again at once (`asn1_find_node`'s: one entry of 630 KB).
  /// Small: on libtasn1, 4 MiB answered 6,844 calls, 64 MiB 7,226 (`_asn1_find_up`'s
  /// cycle) with 75 MB more peak RSS instead of 7 MB, and no faster: making and evicting
  /// large entries costs what the extra hits save.
  static constexpr std::uint64_t MaxBytes = 4u << 20;
  static constexpr std::uint64_t MaxFunctionBytes = 1u << 20;
  /// The objects one entry may compare: a state larger than that is not kept (recording
  /// it would cost every call for an entry that fills the cache).
  static constexpr std::size_t MaxObjects = 1u << 14;
  /// Entries per function, one per distinct arguments.
  static constexpr std::size_t MaxPerFunction = 512;

  struct Hit {
    Answer answer;
    pspa::CallReport report;
  };

  /// Whether a call of `f` that found no answer should be recorded for later calls:
  /// `anyway`, or the function's recorded analyses yield hits (`Yield`). Counted in `lowYieldSkips` when not.
  bool worthRecording(llvm::Function *f, bool anyway = false);

  /// What the core is given of one call's arguments (`argKey`), made at most once: `find`
  /// and `remember` of the same call share it.
  class ArgKey {
    friend class LastAnswers;
    const std::vector<klee::ref<klee::Expr>> &args;
    bool made = false, concrete = false;
    std::vector<RecordedSlot> slots;
    std::uint64_t hash = 0;

  public:
    explicit ArgKey(const std::vector<klee::ref<klee::Expr>> &args) : args(args) {}
  };

  /// An answer of `f` for `args` whose reads `state` still holds, or null.
  const Hit *find(const klee::ExecutionState &state, llvm::Function *f, ArgKey &args, const ReadContext &ctx);

  /// Keep `answer`, made from `view` of `state` (reads: the context's counters before the
  /// analysis), if every read was of concrete bytes and the state is small enough; it
  /// replaces the entry of `f` for the same arguments.
  void remember(const klee::ExecutionState &state, llvm::Function *f, ArgKey &args, const KleeStateView &view,
                const ReadContext &ctx, const ReadStats &before, Answer answer, const pspa::CallReport &report);

  /// Objects written since an entry was made whose pointers were found the same (--pspa-stats).
  std::uint64_t compared = 0;
  /// Checks made in a state with the entry's bound objects and types (the short way: no
  /// address lookups for the met objects, no unresolved words to look at).
  std::uint64_t sameBound = 0;
  /// Calls not recorded because their function's entries almost never served
  /// (`worthRecording`).
  std::uint64_t lowYieldSkips = 0;

private:
  /// What a function's entries yielded, the core's rule for its summary cache
  /// (summaries.rs `Yield`): recording a call costs its reads twice over and an entry that
  /// pushes out others (libtasn1's `_asn1_find_up` climbs from a new node at each call:
  /// about 80 KB an entry, 35 hits in 1,258 calls). After `Warmup` entries, a function
  /// whose entries served fewer than one call in `MinRate` is recorded at every
  /// `Sample`th call only, so that calls that start to repeat are found again. Answers do
  /// not depend on it (an entry serves only a state that gives its answer).
  struct Yield {
    static constexpr std::uint64_t Warmup = 64, MinRate = 32, Sample = 8;
    std::uint64_t asked = 0, tried = 0, hits = 0;
    bool tryNow() {
      ++asked;
      bool worth = tried < Warmup || hits * MinRate >= tried || asked % Sample == 0;
      tried += worth;
      return worth;
    }
    void triedAnyway() {
      ++asked;
      ++tried;
    }
  };
  std::unordered_map<llvm::Function *, Yield> yields;

  struct Met {
    std::uint64_t address, id;
    /// Dereferenced only in a state whose bound objects are the entry's (`fingerprint`):
    /// then it is bound, so alive.
    const klee::MemoryObject *mo;
    ObjectType type;
    /// Index into `read`, or npos when only met.
    std::uint32_t read;
  };
  struct Read {
    std::uint32_t met;
    /// Its slots' targets in `Entry::slots`: [from, to).
    std::uint32_t from, to;
    /// The stamp its contents had (moved on when a compare finds the same targets).
    std::uint64_t stamp;
  };
  static constexpr std::uint32_t npos = ~0u;
  using Slot = RecordedSlot;
  struct Entry {
    llvm::Function *f;
    std::uint64_t argsHash;
    /// argKey's, not the values: what the core was given.
    std::vector<Slot> args;
    std::vector<Met> met;
    std::vector<Read> read;
    std::vector<Slot> slots;
    /// Sorted.
    std::vector<std::uint64_t> unresolved;
    /// The bound objects' fingerprint (AddressSpace::boundFingerprint) and the types
    /// learned (ReadContext::castTypesLearned) of a state the entry was made from or found
    /// to hold in: a state with both the same binds the same objects at the same
    /// addresses with the same types, so only the read objects' contents need a look
    /// (no address lookups, no unresolved words to check).
    std::uint64_t fingerprint = 0, castsLearned = 0;
    /// Whether every read object's stamp was accepted with the bound objects of
    /// `fingerprint` (a long check that compared an object and then failed leaves it off).
    bool fast = true;
    Hit hit;
    /// What `bytes` counts for it (its unresolved words may grow later).
    std::uint64_t accounted = 0;
    /// Its place in its function's own order (`Entries::order`).
    std::list<std::list<Entry>::iterator>::iterator inFunction;
    std::uint64_t cost() const {
      // The answer too: an entry may be the last to hold it.
      return sizeof(Entry) + sizeof(Met) * met.size() + sizeof(Read) * read.size() + sizeof(Slot) * slots.size() +
             8 * unresolved.size() + hit.report.answer_bytes;
    }
  };
  /// The slots with a target of `os` (`mo`'s contents) in `state`, whose bound objects lie
  /// in `span`, appended to `out`, and its unresolved words to `unresolved`; false when a
  /// word is symbolic.
  static bool slotsOf(const klee::ExecutionState &state, std::pair<std::uint64_t, std::uint64_t> span,
                      const ReadContext &ctx, const klee::MemoryObject *mo, const klee::ObjectState *os,
                      std::vector<Slot> &out, std::vector<std::uint64_t> &unresolved);
  using Lru = std::list<Entry>;
  bool holds(Entry &e, const klee::ExecutionState &state, const ReadContext &ctx);
  /// What the core is given of `args` in `state` (KleeStateView::arg's rule): for each, an
  /// object and offset, a function, an address no object holds (the value), or nothing (an
  /// integer, a value of another width). Calls that differ only in what gives nothing
  /// (`sqlite3DbMallocRawNN(db, n)`'s size) share an entry. False for a symbolic pointer-wide
  /// argument (never kept: its targets depend on the path).
  static bool argKey(const klee::ExecutionState &state, const ReadContext &ctx,
                     const std::vector<klee::ref<klee::Expr>> &args, std::vector<Slot> &out);
  static std::uint64_t hashOf(const std::vector<Slot> &key);
  /// `key` made (argKey, hashOf) if it was not; whether the arguments are all concrete.
  static bool made(ArgKey &key, const klee::ExecutionState &state, const ReadContext &ctx);
  void erase(Lru::iterator it);
  /// Front: most recently used.
  Lru lru;
  /// Per function, by a hash of the arguments (one entry per hash), and their bytes.
  struct Entries {
    std::unordered_map<std::uint64_t, Lru::iterator> byArgs;
    /// Front: most recently used.
    std::list<Lru::iterator> order;
    std::uint64_t bytes = 0;
  };
  std::unordered_map<llvm::Function *, Entries> byFunction;
  std::uint64_t bytes = 0;
};

} // namespace pspa_plugin

#endif
