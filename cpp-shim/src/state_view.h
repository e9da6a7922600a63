// Reading a KLEE state for the core (bridge/src/lib.rs asks through pspa::StateView):
// objects, their allocation sites and types, and the pointer values in their fields
// (concrete values need no query; symbolic ones are resolved with the plugin's solver).
#pragma once

#include "klee/Expr/ExprHashMap.h"
#include "clients.h"
#include "pspa/state_view.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Memory.h"

#include "llvm/ADT/DenseMap.h"

#include <chrono>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace llvm {
class Type;
} // namespace llvm

namespace pspa_plugin {

/// How pointer-sized slots and arguments were read (--pspa-stats). Each counter is a rule
/// of KleeStateView::targets, whose comments say why the rule is sound.
struct ReadStats {
  std::uint64_t concrete = 0;         // concrete bytes, read without building expressions
  std::uint64_t symbolicAddress = 0;  // symbolic, built from an address: resolved by the solver
  std::uint64_t symbolicData = 0;     // symbolic input in a slot not typed as a pointer: data
  std::uint64_t unknownTyped = 0;     // symbolic input in a pointer-typed slot: unknown target
  std::uint64_t unknownTooMany = 0;   // an address with too many targets: unknown target
  std::uint64_t unknownUntyped = 0;   // read from memory into a slot not typed as a pointer: unknown
  std::uint64_t unknownBudget = 0;    // a symbolic address past --pspa-max-read-ms: unknown
  std::uint64_t unknownGivenUp = 0;   // an address whose resolution gave up before (ReadContext::givenUp)
  std::uint64_t cachedObjects = 0;    // objects whose words came from the read cache, unread
};

/// What a concrete pointer-sized word of memory is to the core: an integer (below the first
/// page), an address in an object (`a`: its id, `b`: the offset), a function's address
/// (`a`: the llvm::Function*), or an integer no object holds now (`Unresolved`: an object
/// allocated there later would make it a pointer). KleeStateView reads words by it, and
/// LastAnswers compares written objects by it.
struct WordTarget {
  enum Kind { Integer, Object, Function, Unresolved } kind;
  std::uint64_t a, b;
  const klee::MemoryObject *mo = nullptr;
};

/// What reading each object gave, kept across calls and states. A concrete word's target
/// is a function of its bytes and of which objects are bound where, so an object whose
/// contents have the write stamp they had (ObjectState::writeStamp: equal stamps, equal
/// bytes) reads as it did, word for word, where each of its words still has its target
/// (KleeStateView::stillTargets), and so in an address space with the bound fingerprint it
/// was last found in (AddressSpace::boundFingerprint: equal fingerprints, the same objects
/// bound, but with probability 2^-64): the view gives its kept words instead of reading
/// them. An object's symbolic words are not kept, only where they are: they are read again
/// each time (their targets depend on the path's constraints). On SQLite (60 s) 11.1M
/// objects came from it, 85 % of them with other bound objects than last. --pspa-check
/// reads each object given from it too and counts differences (klee-tests/read_cache.c).
struct ReadCache {
  struct Word {
    std::uint32_t offset;
    WordTarget::Kind kind;
    /// As WordTarget's; for an unresolved word, `a` is the word.
    std::uint64_t a, b;
    const klee::MemoryObject *mo;
    bool operator==(const Word &o) const {
      return offset == o.offset && kind == o.kind && a == o.a && b == o.b && mo == o.mo;
    }
    /// Word `word` at `offset`, which wordTarget made `t` (not an integer).
    static Word of(std::uint32_t offset, const WordTarget &t, std::uint64_t word) {
      return Word{offset, t.kind, t.kind == WordTarget::Unresolved ? word : t.a, t.b, t.mo};
    }
  };
  struct Entry {
    std::uint64_t writeStamp, fingerprint;
    /// The concrete words with a target, or unresolved, in offset order (integers are not
    /// kept).
    std::vector<Word> words;
    /// The offsets of the symbolic words, in order: read again each time (their targets
    /// depend on the path's constraints). SQLite's 48 KB object of 6,001 words held one or
    /// two, and was 93 % of the words read.
    std::vector<std::uint32_t> symbolic;
    std::size_t size() const { return words.size() + (symbolic.size() + 1) / 2; }
  };
  /// Off: --pspa-no-read-cache.
  bool on = true;
  /// Entries found to hold in an address space with other bound objects than the one
  /// they were read or last found in (KleeStateView::stillTargets).
  std::uint64_t rebound = 0;
  /// Entries given with symbolic words, which were read again.
  std::uint64_t symbolicAgain = 0;
  /// With --pspa-check: every object given from the cache is read too, and compared
  /// (`mismatches`: a difference, after which the fresh words are given).
  bool verify = false;
  std::uint64_t verified = 0, mismatches = 0;
  llvm::DenseMap<std::uint64_t, Entry> byObject;
  /// Words kept in all; past MaxWords (about 4 MB, an entry counted as one more word for
  /// its own overhead) everything goes, and the cache fills again with what the run reads
  /// from then on.
  std::size_t words = 0;
  static constexpr std::size_t MaxWords = 1u << 17;
  /// Called only when `on`.
  void keep(std::uint64_t id, Entry e) {
    if (words + e.size() + byObject.size() > MaxWords) {
      byObject.clear();
      words = 0;
    }
    auto it = byObject.find(id);
    if (it != byObject.end()) {
      words -= it->second.size();
      it->second = std::move(e);
      words += it->second.size();
    } else {
      words += e.size();
      byObject.try_emplace(id, std::move(e));
    }
  }
};

/// An object's type, `offset` bytes into it: 0, or the size of a header an allocator puts
/// before what it returns (SQLite's sqlite3MemMalloc keeps the size in the first 8 bytes,
/// returns base + 8, and the caller casts that to its struct). Typed by the header's cast
/// alone (an i64), every SQLite heap object was one field.
struct ObjectType {
  llvm::Type *type = nullptr;
  std::uint64_t offset = 0;
  bool operator==(const ObjectType &o) const { return type == o.type && offset == o.offset; }
  bool operator!=(const ObjectType &o) const { return !(*this == o); }
};

/// An address's failed resolutions (ReadContext::givenUp).
struct GivenUp {
  static constexpr unsigned Strikes = 2;
  unsigned strikes = 0;
  /// Path constraints at the last one.
  std::size_t constraints = 0;
};

/// What reading states needs from the plugin, and keeps from one read to the next.
struct ReadContext {
  klee::Executor *executor = nullptr;
  llvm::Module *module = nullptr;
  /// Its own solver chain (Host::ownSolver).
  Host *host = nullptr;
  /// Types inferred from casts of an object's pointers (paper, section 5): the first cast
  /// of its base, or of a pointer just past a header (ObjectType::offset).
  llvm::DenseMap<std::uint64_t, ObjectType> castTypes;
  /// How many castTypes has learned: an object's type changes only when this grows.
  std::uint64_t castTypesLearned = 0;
  /// The objects of global variables, found once: KLEE allocates them all before main and
  /// every state shares them.
  std::vector<const klee::MemoryObject *> globalObjects;
  llvm::DenseMap<std::uint64_t, const klee::MemoryObject *> globalById;
  bool globalsFound = false;
  ReadStats reads;
  ReadCache cache;
  /// Symbolic addresses whose resolution gave up: too many targets, or twice a timeout or
  /// a call's --pspa-max-read-ms spent before it (a cold solver cache can time out once
  /// where a warm one does not). Met again, such an address is an unknown target at once,
  /// until a path has twice the constraints it had then (and 16 more), which may narrow
  /// it; one that resolves is forgotten, unless it was slow and its call's reading gave an
  /// unknown target all the same (KleeStateView::slowResolved): then it strikes, and keeps
  /// its strikes. libtiff's hash-set buckets, written at an index hashed from the symbolic
  /// tag and read at the end of every path (`TIFFCleanup`, `TIFFHashSetDestroy`), resolve
  /// to no object in 11-33 ms a word: each call resolved the same first words again, spent
  /// --pspa-max-read-ms on them and made the rest unknown. make's nested analysed calls
  /// (find_percent_cached, strcache_add, add_hash) read the same addresses of a symbolic
  /// buffer, each spending
  /// --pspa-max-read-ms on them. An unknown target is sound for any address: a state that
  /// could have resolved it loses precision only. Bounded.
  klee::ExprHashMap<GivenUp> givenUp;
};

/// Whether the core lays out objects of type `t` (onCast types only those).
bool layoutable(llvm::Type *t);

/// The largest header an allocator may put before what it returns (ObjectType::offset).
constexpr std::uint64_t MaxHeader = 16;

/// Whether a cast of object `id`'s pointer `cast.offset` bytes in to `cast.type` (a
/// layoutable type, not i8) teaches its type, which `types` then holds. The first cast of
/// its base types it (paper, section 5), but a scalar there is only a guess: a struct or
/// array cast at the base, or past a header of at most MaxHeader bytes, replaces it; one
/// past a header is replaced in turn by one at the base.
bool learnCast(llvm::DenseMap<std::uint64_t, ObjectType> &types, std::uint64_t id, std::uint64_t size,
               ObjectType cast);

/// The type of an object: its global's or alloca's, else what castTypes learned, else
/// none (unknown: field-insensitive).
ObjectType objectType(const ReadContext &ctx, const klee::MemoryObject *mo);

/// [lo, hi): the span of the objects bound in `space` (lo == hi when none). A word outside
/// it is no object's address.
std::pair<std::uint64_t, std::uint64_t> boundSpan(const klee::AddressSpace &space);

/// The object bound in `space` that holds address `v` (as AddressSpace::resolveOne finds
/// it, without building an expression), or null. `probe` is the caller's lookup key: one
/// per caller, since each MemoryObject made takes one of KLEE's object ids.
const klee::MemoryObject *objectHolding(const klee::AddressSpace &space, std::uint64_t v,
                                        klee::MemoryObject &probe);

/// The words of `mo`'s contents `os` in `space` (bound objects in [lo, hi)) that are no
/// integers, as wordTarget makes them, appended to `out`; false when a word is symbolic.
/// What the read cache keeps, and what it and LastAnswers compare a kept read against.
bool concreteWords(const ReadContext &ctx, const klee::AddressSpace &space, std::uint64_t lo, std::uint64_t hi,
                   const klee::MemoryObject *mo, const klee::ObjectState *os, klee::MemoryObject &probe,
                   std::vector<ReadCache::Word> &out, std::vector<std::uint32_t> *symbolic = nullptr);

/// A slot with a target, as wordTarget gave it: what LastAnswers compares.
struct RecordedSlot {
  std::uint64_t offset, kind, a, b;
  bool operator==(const RecordedSlot &o) const { return offset == o.offset && kind == o.kind && a == o.a && b == o.b; }
};
/// `v` in `space`, whose bound objects lie in [lo, hi).
WordTarget wordTarget(const ReadContext &ctx, const klee::AddressSpace &space, std::uint64_t lo, std::uint64_t hi,
                      std::uint64_t v, klee::MemoryObject &probe);

/// A KLEE state as the core sees it. Answers are cached: the core may ask twice.
class KleeStateView : public pspa::StateView {
public:
  KleeStateView(ReadContext &ctx, klee::ExecutionState &s, llvm::Function *f, std::vector<klee::ref<klee::Expr>> &args)
      : ctx(ctx), state(s), callee(f), args(args) {
    // A word outside the bound objects' span needs no lookup (most words of a structure
    // are names, counts and flags).
    std::tie(objLo, objHi) = boundSpan(s.addressSpace);
  }

  /// Keep what `metObjects`, `readObjects` and `unresolvedWords` return, while at most
  /// `maxObjects` objects are met (LastAnswers keeps only small states: recording a large
  /// one would be work on every call for nothing). Off by default.
  void recordFor(std::size_t maxObjects) const {
    recording = true;
    recordCap = maxObjects;
  }

  std::size_t num_args() const override { return args.size(); }

  pspa::Read arg(std::size_t i, rust::Vec<pspa::TargetFfi> &out) const override;

  rust::Vec<pspa::GlobalFfi> globals() const override;

  bool object(std::uint64_t id, pspa::ObjectFfi &out) const override;
  bool pointer_slots(std::uint64_t id) const override;
  rust::Slice<const pspa::TargetFfi> slots_read() const override {
    return rust::Slice<const pspa::TargetFfi>(slotBuf.data(), slotBuf.size());
  }

private:
  using Targets = std::vector<pspa::TargetFfi>;
  /// pointer_slots' output (slots_read).
  mutable Targets slotBuf;
  bool targets(klee::ref<klee::Expr> e, bool pointerTyped, Targets &out) const;
  bool concreteTarget(std::uint64_t v, Targets &out) const;
  void push(const WordTarget &t, std::uint64_t v, Targets &out) const;
  enum class AddressSource { None, Constant, Memory };
  AddressSource holdsAddress(const klee::ref<klee::Expr> &e) const;
  ObjectType typeOf(const klee::MemoryObject *mo) const;
  const klee::MemoryObject *find(std::uint64_t id) const;
  /// Whether every word of `e` has the target it had when kept, in this state's bound
  /// objects: an object word's object is still bound, an unresolved word is still held by
  /// none (a function's address, an integer, need no look). With the same contents (the
  /// write stamp), the object then reads as `e` says: the bound fingerprint changes at
  /// every allocation or free between two calls, most of which (SQLite: 85 % of the
  /// objects looked up) free nothing the object points to.
  bool stillTargets(const ReadCache::Entry &e) const;
  /// Whether `mo`'s contents `os` read now as `kept` says (ReadCache::verify).
  bool sameWords(const klee::MemoryObject *mo, const klee::ObjectState *os,
                 const ReadCache::Entry &kept) const;

  ReadContext &ctx;
  klee::ExecutionState &state;
  llvm::Function *callee;
  std::vector<klee::ref<klee::Expr>> &args;
  /// The objects met so far (globals and pointer targets): the core asks only for those,
  /// so no call walks the whole address space.
  // Open addressing (DenseMap, as KLEE's ids are never its two reserved keys): an
  // unordered_map allocated a node per object met, a tenth of the view's time.
  mutable llvm::DenseMap<std::uint64_t, const klee::MemoryObject *> known;
  /// The key of address lookups (see concreteTarget).
  mutable klee::MemoryObject probe{0};
  /// Bound objects lie in [objLo, objHi) (empty when there are none).
  std::uint64_t objLo = 0, objHi = 0;

public:
  /// What this view gave the core (`LastAnswers` keeps it), when recorded (`recordFor`):
  /// the objects whose site, size and type it gave, those whose contents it read, and the
  /// concrete words of those contents at or above the first page that were no object's or
  /// function's address.
  bool recorded() const { return recording; }
  const std::vector<const klee::MemoryObject *> &metObjects() const { return met; }
  /// A read object: its contents' write stamp when read, and its slots with a target
  /// (`recordedSlots()[from..to)`, in offset order); `concrete`: every word was.
  struct RecordedRead {
    const klee::MemoryObject *mo;
    std::uint64_t stamp;
    std::uint32_t from, to;
    bool concrete;
  };
  const std::vector<RecordedRead> &readObjects() const { return readMos; }
  const std::vector<RecordedSlot> &recordedSlots() const { return slots; }
  const std::vector<std::uint64_t> &unresolvedWords() const { return unresolved; }

private:
  mutable bool recording = false;
  mutable std::size_t recordCap = 0;
  mutable std::vector<const klee::MemoryObject *> met;
  mutable std::vector<RecordedRead> readMos;
  mutable std::vector<RecordedSlot> slots;
  mutable std::vector<std::uint64_t> unresolved;
  /// Time spent resolving symbolic addresses for this call (--pspa-max-read-ms).
  mutable std::chrono::steady_clock::duration resolving{};
  /// This call's symbolic addresses that resolved, but slowly (--pspa-slow-resolve-ms),
  /// before its reading gave an unknown target (`unknownRead`: over the budget, too many
  /// targets, given up on): each strikes then (ReadContext::givenUp).
  mutable std::vector<klee::ref<klee::Expr>> slowResolved;
  mutable bool unknownRead = false;
};

} // namespace pspa_plugin
