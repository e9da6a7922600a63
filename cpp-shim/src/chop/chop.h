// Chopped symbolic execution (paper 6.2, `--skip-functions`). The files of this folder:
//   client.cpp   the hooks: which calls are skipped, which accesses wait for a recovery
//   recovery.cpp a recovery's life: made from a snapshot, completed into its path, ended
//   effects.cpp  recovered calls' effects, recorded and replayed into younger recoveries
//   searcher.cpp the searcher that pauses waiting paths and runs recoveries first
//   profile.cpp  what skipping each function would save and cost (chop-profile.csv), and
//                the online choice of --skip-functions=auto (auto.cpp)
//   options.cpp  --skip-functions and the other options; report.cpp the done lines, chop.csv
//   path.h       what a path keeps, and the ordering rule of its bytes (PathState::written)
//   stamps.h     the per-byte write stamps a path shares with its forks and snapshots
#pragma once

#include "chop/path.h"
#include "chop/profile.h"
#include "clients.h"

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace klee {
class Statistic;
} // namespace klee
namespace llvm {
class AllocaInst;
} // namespace llvm

namespace pspa_plugin {

/// The chopping client's run.stats columns.
std::vector<klee::Statistic *> chopStatistics();

namespace chop {
class Searcher;
/// `file:line` of an instruction, for messages and chop.csv.
std::string where(const klee::KInstruction *ki);
} // namespace chop

class ChopClient : public Client {
public:
  static bool enabled();
  ChopClient(Host &host, llvm::Module &m);
  /// Wraps KLEE's searcher: paths waiting for a recovery are paused; recovery states first.
  klee::Searcher *wrap(klee::Searcher *base);
  /// True to skip the call (a snapshot is kept), or to hold a declared call until the
  /// pending skips it depends on are recovered.
  bool beforeCall(CallSite &c) override;
  /// A call that runs: the profile counts it (and may analyse it).
  void callRuns(CallSite &c, const CallAnalysis &a) override;
  /// True to hold the access: the path waits for a recovery and then runs it again.
  bool onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) override;
  void afterReturn(klee::ExecutionState &state) override;
  /// For paths waiting on a skipped call's result: true holds an instruction that uses it.
  bool beforeInstruction(klee::ExecutionState &state, klee::KInstruction *ki) override;
  void afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo) override;
  /// True when the free waits for a recovery, or `state` was discarded instead.
  bool beforeFree(klee::ExecutionState &state, const klee::MemoryObject *mo) override;
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) override;
  void stateTerminated(klee::ExecutionState &state) override;
  bool isRecovery(const klee::ExecutionState *s) const;
  /// The answers of the skipped calls pending on `state`'s path, oldest first (each
  /// analysed now if it was not yet): the state lacks their writes, so an analysis from
  /// it must join their post-states. Empty with whole-program answers (they need none).
  std::vector<Answer> pendingAnswers(const klee::ExecutionState &state);
  /// `KLEE: done: recovery states = N`, `created snapshots = N`, pspa chop lines; chop.csv.
  void report(klee::InterpreterHandler &handler, llvm::json::Object &json) override;

private:
  using Snapshot = chop::Snapshot;
  using Pending = chop::Pending;
  using Recovery = chop::Recovery;
  using PathState = chop::PathState;

  // client.cpp
  /// Whether a call of `f` may constrain the path's input (klee_assume), per the whole
  /// program's call graph: then `chain` names the way there. Such functions are not skipped.
  bool mayConstrain(llvm::Module &m, llvm::Function *f, std::string &chain);
  /// Whether the skipped call of `s` may end the path (run one of `enders`), per its
  /// analysis (past-sensitive: the state's function pointers decide).
  bool mayEnd(Snapshot &s);
  /// Whether the call of `s` may constrain the input (reach a call of klee_assume other than
  /// KLEE's concretization), past-sensitively (analysed now).
  bool mayAssume(Snapshot &s);
  /// Whether the process's heap is over KLEE's --max-memory (checked at most every 20 ms):
  /// no call is skipped then.
  bool atMemoryCap();
  /// An object this large makes a path stop skipping (a snapshot would make KLEE copy it).
  std::uint64_t hugeObjectBytes() const;
  /// Analyse the skipped call of `s` once, from its snapshot joined with the post-states
  /// of the older skips pending then (analysed first).
  void analyse(Snapshot &s);
  bool mayWrite(Snapshot &s, const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes, bool known);
  /// Whether `mo` is a local whose address never leaves its function (only loaded and
  /// stored through, by casts and GEPs too): no call can write it (cached per alloca).
  bool ownFrameOnly(const klee::MemoryObject *mo);
  /// Whether the skipped call may have freed `mo` (its may-free set; a subset of mod).
  bool mayFree(Snapshot &s, const klee::MemoryObject *mo);
  /// The path ends here without an error: nothing of the program runs after (exit; or
  /// uclibc's exit flushing its streams after the atexit handlers), and a KLEE test holds
  /// the input that leads here, not the program's output, so no pending skip's writes can
  /// change it: they are dropped, not recovered. With --pspa-chop-skipped-errors the ones
  /// that may end the path themselves (an error inside them) are recovered first, as KLEE
  /// alone would have reported that error; true then (the call is held).
  bool cleanEnd(klee::ExecutionState &state, PathState &p, klee::KInstruction *ki);
  /// Recovers the oldest pending call that may end the path, and holds the call `ki` (it
  /// runs again after the recovery); false when none may.
  bool recoverOneThatMayEnd(klee::ExecutionState &state, PathState &p, klee::KInstruction *ki);
  /// A call of a declared function (KLEE's handlers, externals); true when held.
  bool declaredCall(klee::ExecutionState &state, klee::KInstruction *ki, llvm::Function *f,
                    std::vector<klee::ref<klee::Expr>> &args);

  /// Why `f` can never be skipped ("" if it can); with `chain`, asked for a function the
  /// user names: what may constrain the input per the whole program (PSPA checks each call).
  std::string refuse(llvm::Function *f, std::string *chain = nullptr);
  /// The hooks' own work for an access and a free (the profile sees what they let happen).
  bool chopAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                  klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite);
  bool chopFree(klee::ExecutionState &state, const klee::MemoryObject *mo);

  // auto.cpp
  /// --skip-functions=auto: whether calls of `f` are skipped from now on (ranks the profile
  /// again when it changed; stops skipping a function whose recoveries cost more than they
  /// save).
  void autoChoose(const chop::Site &site);
  /// Ranks the profile and skips what the ranking proposes; `force`: whatever the work
  /// since the last ranking.
  void rankAndChoose(bool force);
  /// chop.csv's `auto` column for `name`.
  std::string autoNote(const std::string &name) const;

  // recovery.cpp
  /// The path `state` waits while pending skip `i` is recovered (oldest first).
  void recover(klee::ExecutionState &state, PathState &p, std::size_t i, klee::KInstruction *ki,
               const klee::MemoryObject *trigger = nullptr, std::uint64_t off = 0, unsigned bytes = 0,
               bool known = false);
  /// A new state at `snap`'s call (about to run it again), under the constraints and
  /// symbolic arrays of `path`, with path data `data`; added to KLEE as a fork of `path`.
  klee::ExecutionState *restartFrom(const Snapshot &snap, klee::ExecutionState &path, PathState data);
  /// Recovery state `r` returned from its call: its path goes on with the call's effects.
  void complete(klee::ExecutionState &r, PathState &rp);
  void apply(klee::ExecutionState &r, PathState &rp, klee::ExecutionState &t, PathState &tp, const Snapshot &snap);
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

  // effects.cpp
  /// Records what recovery `r` (of `snap`) did, for the younger pending skips of `tp`
  /// whose snapshots predate it, and drops effects no pending skip needs any more.
  void recordEffect(const klee::ExecutionState &r, const PathState &rp, PathState &tp, const Snapshot &snap);
  /// Brings the effects of the calls the path `p` recovered since `snap` was taken into
  /// `r`, a recovery state made from `snap`, and drops them from its pending calls.
  void replayEffects(const PathState &p, const Snapshot &snap, klee::ExecutionState &r, PathState &rp);

  Host &host;
  std::map<llvm::Function *, std::set<unsigned>> skip; // function -> call lines (empty: all)
  std::set<llvm::Function *> warnedInvoke;
  /// The functions that end a path where they are called (endsPath, or holding an
  /// `unreachable`).
  std::vector<std::size_t> enders; // as llvm::Function* addresses, what the bridge takes
  /// mayEnd per function with whole-program answers (the same for every call).
  std::unordered_map<llvm::Function *, int> wholeProgramMayEnd;
  std::unordered_map<const llvm::AllocaInst *, bool> privateLocals;
  /// Functions that may call klee_assume per the whole program: each call checked (PSPA).
  std::set<llvm::Function *> checkConstrain;
  /// The functions whose call may constrain the input (`mayAssume`), as the bridge takes them.
  std::vector<std::size_t> constrainers;
  /// Functions ending the process that may call klee_assume per the whole program: the
  /// answers do not follow them (`engine_not_followed`), so `mayAssume` asks whether a
  /// call may reach one. Computed at the first `mayAssume`.
  std::optional<std::vector<std::size_t>> endingConstrainers;
  llvm::Module *module = nullptr;
  chop::Searcher *searcher = nullptr;
  unsigned maxMemoryMB = 0; // KLEE's --max-memory (0: none)
  bool memoryCapped = false;
  std::chrono::steady_clock::time_point lastMemoryCheck{};
  PerState<PathState> paths;
  std::unordered_map<const klee::ExecutionState *, std::shared_ptr<Recovery>> waiting;
  const klee::ExecutionState *completing = nullptr;
  std::map<std::string, chop::FunctionStats> stats;
  /// The profile (--pspa-chop-profile, or auto), and what auto decided: the functions it
  /// skips (with the call count then), those it stopped skipping (why).
  std::unique_ptr<chop::Profiler> profiler;
  unsigned autoTop = 0;
  struct AutoSkip {
    std::uint64_t calls;                    // the unit's calls before its first skip
    std::string reason;                     // the ranking's
    std::uint64_t judgedRecoveries = ~0ull; // its recoveries when the stop rule last said go on
    /// Its skips and recoveries when a stop was due but the calls its recoveries were read
    /// inside got skipped (autoChoose): the stop rule judges what came after.
    std::uint64_t skipsBefore = 0, recoveriesBefore = 0;
    /// The stop rule ranked once before stopping it (see autoChoose).
    bool ranked = false;
  };
  std::map<chop::Site, AutoSkip> autoSkipped;
  std::map<chop::Site, std::string> autoStopped;
  std::uint64_t rankedAt = ~0ull, ranks = 0, callsSinceRank = 0;
  double rankSeconds = 0; // spent ranking (reported: the online choice's own cost)
  std::uint64_t rankedInstructions = 0, rankedSites = 0; // at the last ranking
  std::uint64_t snapshots = 0, recoveries = 0, failedRecoveries = 0, symbolicWriteRecoveries = 0,
                joinedAnalyses = 0, refusedSkips = 0, invokeCalls = 0, endRecoveries = 0, fallbacks = 0,
                externalRecoveries = 0, writesAfterFree = 0, freeWriteRecoveries = 0, replayedEffects = 0,
                triggeredRecoveries = 0, spuriousRecoveries = 0, droppedAtEnd = 0, privateLocalAnswers = 0, constrainedCalls = 0,
                memoryCapCalls = 0, hugeObjectCalls = 0;
};

} // namespace pspa_plugin
