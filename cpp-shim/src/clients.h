// The clients of the analysis inside KLEE (one file each), and what they may ask of the
// plugin (plugin.cpp), which owns the engine and reads states.
#pragma once

#include "pspa-klee/src/lib.rs.h"

#include "klee/Core/Plugin.h"
#include "klee/Expr/Expr.h"

#include "lib/Core/Memory.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm
namespace klee {
class InterpreterHandler;
class Searcher;
class Statistic;
class ExecutionState;
class Executor;
class TimingSolver;
class MemoryObject;
struct KInstruction;
} // namespace klee

namespace pspa_plugin {

/// An analysed call's answer, shared by the states that fork after the call.
using Answer = std::shared_ptr<rust::Box<pspa::CallAnswer>>;

class Host {
public:
  virtual ~Host() = default;
  virtual const pspa::Engine &analysisEngine() const = 0;
  virtual klee::Executor &kleeExecutor() = 0;
  /// The answers are whole-program (--pspa-mode=spa): the same for every call, and free.
  virtual bool wholeProgram() const = 0;
  /// The plugin's own solver chain. KLEE's chain caches counterexamples, and a cached one
  /// can become the example of a later resolution or branch: queries the plugin put there
  /// would change the paths KLEE explores, and so what the clients are compared on.
  virtual klee::TimingSolver &ownSolver() = 0;
  /// Analyse the call of `f` (instruction `ki`, arguments `args`) from `state`, which may
  /// be a state KLEE does not run (a snapshot); null if the analysis failed. `pending`:
  /// the answers of the skipped calls still pending on the state's path, oldest first
  /// (null: failed), whose writes the state lacks: their post-states join it (paper 6.2).
  /// `keepPost`: the call is skipped, and its answer keeps its post-state for the
  /// analyses of later calls.
  virtual Answer analyze(klee::ExecutionState &state, klee::KInstruction *ki, llvm::Function *f,
                         std::vector<klee::ref<klee::Expr>> &args, const std::vector<Answer> &pending,
                         bool keepPost) = 0;
  /// The whole-program answer of `f` (SPA).
  virtual std::shared_ptr<rust::Box<pspa::CallAnswer>> wholeProgramAnswer(llvm::Function *f) = 0;
};

/// The live object `mo` as the answers name it (`existed`: before `firstNew`). Here, not
/// in plugin.cpp, so that no client depends on the plugin that dispatches to it.
inline pspa::LiveObjectFfi liveObject(const klee::MemoryObject *mo, std::uint64_t firstNew) {
  return pspa::LiveObjectFfi{mo->id, reinterpret_cast<std::size_t>(mo->allocSite), mo->id < firstNew};
}

/// A client's data per path: a fork starts with a copy of its parent's (it has been where
/// its parent has), and a path's data goes when the path ends.
template <typename T> class PerState {
public:
  T &operator[](const klee::ExecutionState &s) { return map[&s]; }
  /// The path's data, null if it has none.
  T *find(const klee::ExecutionState &s) {
    auto it = map.find(&s);
    return it == map.end() ? nullptr : &it->second;
  }
  /// `child` forked from `parent`.
  void branched(const klee::ExecutionState &parent, const klee::ExecutionState &child) {
    auto it = map.find(&parent);
    if (it != map.end())
      map[&child] = it->second;
  }
  void erase(const klee::ExecutionState &s) { map.erase(&s); }
  auto begin() { return map.begin(); }
  auto end() { return map.end(); }

private:
  std::unordered_map<const klee::ExecutionState *, T> map;
};

/// --pspa-check (check.cpp): every load and store inside an analysed call, on every path
/// until the call returns, checked against the call's answer.
class CheckClient {
public:
  static bool enabled();
  /// Turn --pspa-check on (the environment variable KLEE_PLUGIN_PSPA_CHECK=1).
  static void enable();
  explicit CheckClient(Host &host) : host(host) {}
  /// A call of `f` analysed in `state`, about to run: checked until it returns (null
  /// `answer`: its analysis failed, nothing to check).
  void analysed(klee::ExecutionState &state, Answer answer, std::uint64_t firstNew, llvm::Function *f);
  /// Before any call (counts the declared ones inside checked calls: their accesses are
  /// not seen).
  void beforeCall(const klee::ExecutionState &state, llvm::Function *f);
  void afterReturn(const klee::ExecutionState &state);
  void onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite);
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child);
  void stateTerminated(const klee::ExecutionState &state);
  /// `KLEE: done: pspa check: ...`, and the same counters into `json` (pspa-stats.json).
  void report(llvm::json::Object &json);

private:
  /// An analysed call being checked on one path, until it returns.
  struct CheckedCall {
    Answer answer; // shared by the states forked inside the call
    std::size_t depth; // stack depth while the call runs: its frame is at depth - 1
    std::uint64_t firstNew; // objects with a smaller id existed when the call was analysed
    llvm::Function *f;
  };
  struct Stats {
    std::uint64_t calls = 0;          // analysed calls checked (their answer held)
    std::uint64_t failedCalls = 0;    // analysed calls that failed: nothing to check
    std::uint64_t accesses = 0;       // loads and stores checked (per enclosing analysed call)
    std::uint64_t outside = 0;        // of those, outside the call's mod/ref: must be 0
    std::uint64_t locals = 0;         // to locals of the call's own activations (not effects)
    std::uint64_t unknownSite = 0;    // to objects of no known site (answered "may")
    std::uint64_t symbolicOffset = 0; // at a symbolic offset (checked for the whole object)
    std::uint64_t externalCalls = 0;  // calls of declared functions inside checked calls
    unsigned warned = 0;
  };
  /// The checked calls of `state`, without those whose frames (at depth > `depth`) have
  /// returned; null when it has none.
  std::vector<CheckedCall> *returnedFrom(const klee::ExecutionState &state, std::size_t depth);

  Host &host;
  PerState<std::vector<CheckedCall>> checking;
  Stats stats;
};

/// The resolution client's run.stats columns.
std::vector<klee::Statistic *> resolveStatistics();

/// Symbolic pointer resolution pruning (paper 6.4, `--pspa-resolve`): resolve.cpp.
class ResolveClient {
public:
  /// Whether --pspa-resolve is on (then the engine keeps points-to sets).
  static bool enabled();
  /// Turn --pspa-resolve on (the environment variable KLEE_PLUGIN_PSPA_RESOLVE=1).
  static void enable();
  explicit ResolveClient(Host &host) : host(host) {}
  /// Every call (declarations and intrinsics too): keeps the frames. `answer`: the
  /// call's analysis (its snapshot) if the plugin made one (see `wants`), with the first
  /// id of the objects allocated after it.
  void beforeCall(klee::ExecutionState &state, llvm::Function *f, std::vector<klee::ref<klee::Expr>> &args,
                  Answer answer, std::uint64_t firstNew);
  bool resolutionFilter(klee::ExecutionState &state, klee::KInstruction *ki, klee::ref<klee::Expr> address,
                        klee::ResolutionFilter &filter);
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child);
  void stateTerminated(klee::ExecutionState &state);
  /// `KLEE: done: pspa resolve: ...`, and the same counters into `json`.
  void report(llvm::json::Object &json);
  /// Whether calls of `f` are to be analysed now (lazy snapshots mark functions).
  bool wants(llvm::Function *f) const;

private:
  struct Frame {
    llvm::Function *f = nullptr;
    /// The call had a symbolic pointer argument: its snapshot would not know what the
    /// argument points to, so resolutions inside look further out.
    bool symbolicPointerArg = false;
    Answer answer;
    std::uint64_t firstNew = 0;
  };
  std::vector<Frame> &frames(klee::ExecutionState &state);
  /// Whether the analysis replaces `f`'s body by a library model (cached per function).
  bool bodyModelled(const llvm::Function *f);

  Host &host;
  PerState<std::vector<Frame>> perState;
  /// Functions whose calls take a snapshot (lazy: after a symbolic dereference in them).
  std::unordered_map<const llvm::Function *, bool> marked;
  std::unordered_map<const llvm::Function *, bool> modelledBodies;
  /// Beyond the run.stats columns (resolve.cpp's statistics).
  std::uint64_t pruned = 0, throughArguments = 0, noSnapshot = 0, validationQueries = 0;
  bool warnedMismatch = false;
};

/// Write Integrity Testing (paper 6.3, `--pspa-wit`): wit.cpp. Computes the colours once
/// per run, at the WIT point (the first call of --pspa-wit-at=F, or the first call after
/// the first read of symbolic input), writes wit.json / wit.csv, counts colour
/// transitions between consecutive heap allocations, and with --pspa-wit-check checks
/// every write against its colour.
class WitClient {
public:
  static bool enabled();
  /// Turn --pspa-wit and --pspa-wit-check on (the environment variable KLEE_PLUGIN_PSPA_WIT=1).
  static void enable();
  WitClient(Host &host, llvm::Module &m);
  /// Before a call of `f` (with a body) in `state`: whether the colours are to be computed
  /// here (then call `compute` with a view of the state).
  bool atPoint(const klee::ExecutionState &state, llvm::Function *f) const;
  void compute(pspa::Engine &engine, const pspa::StateView &view, const pspa::PendingPosts &pending,
               klee::ExecutionState &state, llvm::Function *f);
  void afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo);
  void onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite);
  /// A function returned: the WIT call's end on this path.
  void afterReturn(const klee::ExecutionState &state);
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child);
  void stateTerminated(klee::ExecutionState &state);
  /// `KLEE: done: wit ...` lines, and the same counters into `json`.
  void report(llvm::json::Object &json);

private:
  struct PathCount {
    /// The colour of the last heap field allocated on the path (when `fields` > 0; 0: an
    /// object the WIT call cannot reach).
    std::uint32_t last = 0;
    std::uint64_t transitions = 0, fields = 0;
    /// The depth of the WIT function's frame on this path (0: not inside it).
    std::size_t witDepth = 0;
  };
  /// The colours of bytes [off, off + bytes) of `mo` (all its fields if !known).
  std::vector<std::uint32_t> colours(const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes,
                                     bool known) const;
  void count(PathCount &p, const klee::MemoryObject *mo) const;

  Host &host;
  std::unique_ptr<rust::Box<pspa::WitHandle>> handle;
  /// --pspa-wit-at=input (read once: the access hook runs at every load and store).
  const bool atInput;
  bool inputSeen = false, failed = false;
  std::uint64_t firstNew = 0;
  PerState<PathCount> paths;
  std::uint64_t transitions = 0, pathsEnded = 0;
  std::uint64_t checked = 0, violations = 0, uncoloured = 0;
  unsigned warned = 0;
  pspa::WitReport result;
  std::unique_ptr<llvm::raw_fd_ostream> csv;
};

/// The chopping client's run.stats columns.
std::vector<klee::Statistic *> chopStatistics();

class ChopSearcher;

/// Chopped symbolic execution (paper 6.2, `--skip-functions`): chop.cpp.
class ChopClient {
public:
  static bool enabled();
  ChopClient(Host &host, llvm::Module &m);
  /// Wraps KLEE's searcher: paths waiting for a recovery are paused; recovery states first.
  klee::Searcher *wrap(klee::Searcher *base);
  /// Before a call: true to skip it (a snapshot is kept).
  bool beforeCall(klee::ExecutionState &state, klee::KInstruction *ki, llvm::Function *f,
                  std::vector<klee::ref<klee::Expr>> &args);
  /// True to hold the access: the path waits for a recovery and then runs it again.
  bool onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite);
  void afterReturn(klee::ExecutionState &state);
  /// For paths waiting on a skipped call's result: true holds an instruction that uses it.
  bool beforeInstruction(klee::ExecutionState &state, klee::KInstruction *ki);
  void afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo);
  /// True when `state` was discarded instead (a recovery freeing what its path freed).
  bool beforeFree(klee::ExecutionState &state, const klee::MemoryObject *mo);
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child);
  void stateTerminated(klee::ExecutionState &state);
  bool isRecovery(const klee::ExecutionState *s) const;
  /// The answers of the skipped calls pending on `state`'s path, oldest first (each
  /// analysed now if it was not yet): the state lacks their writes, so an analysis from
  /// it must join their post-states. Empty with whole-program answers (they need none).
  std::vector<Answer> pendingAnswers(const klee::ExecutionState &state);
  /// `KLEE: done: recovery states = N`, `created snapshots = N`; chop.csv.
  void report(klee::InterpreterHandler &handler, llvm::json::Object &json);

private:
  struct Snapshot;
  struct Pending {
    std::shared_ptr<Snapshot> snap;
    /// The call's result is used and not known yet: its first use recovers the call.
    bool result = false;
    /// Per object (that existed at the skip), the bytes written after the skip.
    std::map<const klee::MemoryObject *, std::vector<bool>> newer;
  };
  /// A skipped call: the state at the call (never run itself) and what the call needs.
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
    ~Snapshot();
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
  /// What a recovered call did on one path (chop.cpp): replayed into a younger call's
  /// recovery whose snapshot predates it, instead of running the call again there.
  struct Effect;
  struct PathState {
    std::vector<Pending> pending; // oldest first
    /// Recovered calls' effects, by the seq of each call they cover (the call and those
    /// recovered inside it), kept while a pending skip's snapshot predates them.
    std::map<unsigned, std::shared_ptr<const Effect>> effects;
    std::shared_ptr<Recovery> recovery; // set in a recovery state
    /// A recovery state: the bytes its call wrote (objects of its snapshot), each with the
    /// seq of the call whose write it holds (0: not written): the call's own, or an older
    /// skip's recovered inside it, which is older than the path's pending skips between
    /// the two; and the older skips recovered inside it.
    std::map<const klee::MemoryObject *, std::vector<unsigned>> wrote;
    std::set<unsigned> nested;
    bool runCall = false; // a recovery state about to run its call
    bool dead = false;    // its recoveries all ended in errors
  };
  struct FunctionStats {
    std::uint64_t snapshots = 0, recoveries = 0, resultUsed = 0;
    std::map<std::string, std::uint64_t> triggers; // load location -> recoveries
  };
  /// Whether a call of `f` may constrain the path's input (klee_assume), per the whole
  /// program's call graph: then `chain` names the way there. Such functions are not skipped.
  bool mayConstrain(llvm::Module &m, llvm::Function *f, std::string &chain);
  /// Whether the skipped call of `s` may end the path (run one of `enders`), per its
  /// analysis (past-sensitive: the state's function pointers decide).
  bool mayEnd(Snapshot &s);
  /// Analyse the skipped call of `s` once, from its snapshot joined with the post-states
  /// of the older skips pending then (analysed first).
  void analyse(Snapshot &s);
  bool mayWrite(Snapshot &s, const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes, bool known);
  /// Whether the skipped call may have freed `mo` (its may-free set; a subset of mod).
  bool mayFree(Snapshot &s, const klee::MemoryObject *mo);
  void recover(klee::ExecutionState &state, PathState &p, std::size_t i, klee::KInstruction *ki,
               const klee::MemoryObject *trigger = nullptr, std::uint64_t off = 0, unsigned bytes = 0,
               bool known = false);
  /// A call of a declared function (KLEE's handlers, externals); true when held.
  bool declaredCall(klee::ExecutionState &state, klee::KInstruction *ki, llvm::Function *f,
                    std::vector<klee::ref<klee::Expr>> &args);
  void complete(klee::ExecutionState &r, PathState &rp);
  void apply(klee::ExecutionState &r, PathState &rp, klee::ExecutionState &t, PathState &tp, const Snapshot &snap);
  /// Brings the effects of the calls the path `p` recovered since `snap` was taken into
  /// `r`, a recovery state made from `snap`, and drops them from its pending calls.
  void replayEffects(const PathState &p, const Snapshot &snap, klee::ExecutionState &r, PathState &rp);
  /// End recovery state `r` without an answer (its path goes on elsewhere).
  void endRecovery(klee::ExecutionState &r);
  /// Whether `pred` holds for a recovery down the chain of waiting paths from `rec`.
  template <typename Pred> bool anyDown(const Recovery &rec, Pred pred);
  /// Whether a path down the chain of waiting paths of `rec` has ended.
  bool chainGone(const Recovery &rec);
  /// Whether `mo` is still allocated in the allocator `rec`'s state shares.
  bool allocatedBelow(const Recovery &rec, const klee::MemoryObject *mo);
  /// A recovery the mechanism cannot finish: its path runs on from the snapshot.
  void fallBack(klee::ExecutionState &state, const char *why);
  /// One path of `rec` ended without completing: the last one ends its waiting path.
  void released(const std::shared_ptr<Recovery> &rec);

  Host &host;
  std::map<llvm::Function *, std::set<unsigned>> skip; // function -> call lines (empty: all)
  std::set<llvm::Function *> warnedInvoke;
  /// The functions that end a path where they are called (endsPath, or holding an
  /// `unreachable`).
  std::vector<std::size_t> enders; // as llvm::Function* addresses, what the bridge takes
  /// mayEnd per function with whole-program answers (the same for every call).
  std::unordered_map<llvm::Function *, int> wholeProgramMayEnd;
  ChopSearcher *searcher = nullptr;
  std::unordered_map<const klee::ExecutionState *, PathState> paths;
  std::unordered_map<const klee::ExecutionState *, std::shared_ptr<Recovery>> waiting;
  const klee::ExecutionState *completing = nullptr;
  std::map<std::string, FunctionStats> stats;
  std::uint64_t snapshots = 0, recoveries = 0, failedRecoveries = 0, symbolicWriteRecoveries = 0,
                joinedAnalyses = 0, refusedSkips = 0, invokeCalls = 0, endRecoveries = 0, fallbacks = 0, externalRecoveries = 0,
                writesAfterFree = 0, freeWriteRecoveries = 0, replayedEffects = 0, triggeredRecoveries = 0, spuriousRecoveries = 0;
};

} // namespace pspa_plugin
