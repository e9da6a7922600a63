// What every client of the analysis inside KLEE shares: the Host (the plugin, which owns
// the engine and reads states), the Client interface the plugin's dispatcher calls, and
// small helpers. Each client lives in its own folder (check/, resolve/, wit/, chop/) and
// sees the others only through these interfaces.
#pragma once

#include "pspa-klee/src/lib.rs.h"

#include "klee/Core/Plugin.h"
#include "klee/Solver/SolverStats.h"
#include "klee/Statistics/Statistic.h"
#include "klee/Expr/Expr.h"

#include "lib/Core/Memory.h"

#include "llvm/IR/Instructions.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm
namespace klee {
class InterpreterHandler;
class Searcher;
class ExecutionState;
class Executor;
class TimingSolver;
class MemoryObject;
struct KInstruction;
} // namespace klee

namespace pspa_plugin {

/// An analysed call's answer, shared by the states that fork after the call.
using Answer = std::shared_ptr<rust::Box<pspa::CallAnswer>>;

/// The plugin's own solver queries (PspaOwnQueries, pspa-stats.json `analysis.own_queries`).
klee::Statistic &ownQueriesStat();

/// Counts the solver queries made in its scope as the plugin's own. KLEE's Queries holds
/// them too; the patch leaves those made inside the plugin's hooks out of ResolveQueries, so
/// this is where a resolution run shows what the analysis asked (reading a state's
/// symbolic pointers resolves them).
class OwnQueries {
public:
  OwnQueries() : start(klee::stats::queries.getValue()) {}
  ~OwnQueries() { ownQueriesStat() += klee::stats::queries.getValue() - start; }
  OwnQueries(const OwnQueries &) = delete;
  OwnQueries &operator=(const OwnQueries &) = delete;

private:
  std::uint64_t start;
};

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
  /// Each use sits in an OwnQueries scope.
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
  virtual Answer wholeProgramAnswer(llvm::Function *f) = 0;
  /// Runs `use` with the engine, a view of `state` at the call of `f`, and the post-states
  /// of the skipped calls pending on its path (what an analysis from the state joins).
  using StateUse = std::function<void(pspa::Engine &, const pspa::StateView &, const pspa::PendingPosts &)>;
  virtual void withState(klee::ExecutionState &state, llvm::Function *f, std::vector<klee::ref<klee::Expr>> &args,
                         const StateUse &use) = 0;
};

/// A call KLEE is about to make (`f` may be null: a call KLEE could not name).
struct CallSite {
  klee::ExecutionState &state;
  klee::KInstruction *ki;
  llvm::Function *f;
  std::vector<klee::ref<klee::Expr>> &args;
};

/// What the plugin's analysis said about a call that runs: `analysed` when it analysed it
/// (then `answer` is null if that failed), `firstNew` the first id of the objects allocated
/// after the analysis.
struct CallAnalysis {
  bool analysed = false;
  Answer answer;
  std::uint64_t firstNew = 0;
  /// Analysed for the clients only (`Client::wantsAnalysis`): the solver work it cost
  /// them (0 when reused), and whether it was given up over their budget
  /// (`Client::analysisBudget`; then `answer` is null).
  std::uint64_t work = 0;
  bool overBudget = false;
};

/// A client of the analysis. The plugin (plugin.cpp) calls each hook of every client in
/// one order: chopping, check, resolution, WIT (`Clients` there).
///
/// Chopping comes first because it alone holds events (a skipped call, an access, a free or
/// an instruction that waits for a recovery), and a held event reaches no later client: it
/// happens again when the path runs on, and the others see it then, once. The other clients
/// only observe, each its own per-path data, so their order among themselves does not
/// matter. One hook comes before any hold: `callReached`, since a place on the path (WIT's
/// point) is there whether or not the call there is skipped.
class Client {
public:
  virtual ~Client() = default;
  /// Before a call, before any client decides about it.
  virtual void callReached(CallSite &) {}
  /// True to skip or hold the call.
  virtual bool beforeCall(CallSite &) { return false; }
  /// Whether the call is to be analysed for this client (the plugin analyses chosen calls
  /// anyway).
  virtual bool wantsAnalysis(llvm::Function *) const { return false; }
  /// The most solver work (points-to elements) such an analysis of `f` is worth to the
  /// client; 0: the session's budget. Over it, the call is given up (not a failure).
  virtual std::uint64_t analysisBudget(llvm::Function *) const { return 0; }
  /// The call runs (it was not skipped or held), after the plugin's analysis if any.
  virtual void callRuns(CallSite &, const CallAnalysis &) {}
  /// A load or store about to happen (see klee::Plugin); true holds it.
  virtual bool onMemoryAccess(klee::ExecutionState &, klee::KInstruction *, const klee::MemoryObject *,
                              klee::ref<klee::Expr> /*offset*/, unsigned /*bytes*/, bool /*isWrite*/) {
    return false;
  }
  /// Before an instruction of a watched state; true holds it.
  virtual bool beforeInstruction(klee::ExecutionState &, klee::KInstruction *) { return false; }
  /// Before a free; true holds it.
  virtual bool beforeFree(klee::ExecutionState &, const klee::MemoryObject *) { return false; }
  virtual void afterAlloc(klee::ExecutionState &, const klee::MemoryObject *) {}
  virtual void afterReturn(klee::ExecutionState &) {}
  virtual void stateBranched(const klee::ExecutionState & /*parent*/, klee::ExecutionState & /*child*/) {}
  virtual void stateTerminated(klee::ExecutionState &) {}
  /// Its `KLEE: done:` lines, output files, and its counters into `json` (pspa-stats.json,
  /// one object per client: what the pipeline's tables read).
  virtual void report(klee::InterpreterHandler &, llvm::json::Object &) {}
};

/// The live object `mo` as the answers name it (`existed`: before `firstNew`). KLEE gives
/// main's arguments and environment the first instruction of main as their site, an alloca
/// at -O0: they are KLEE's own objects (no site), not that local.
inline pspa::LiveObjectFfi liveObject(const klee::MemoryObject *mo, std::uint64_t firstNew) {
  const llvm::Value *site = mo->allocSite;
  if (site && llvm::isa<llvm::AllocaInst>(site) && !mo->isLocal)
    site = nullptr;
  return pspa::LiveObjectFfi{mo->id, reinterpret_cast<std::size_t>(site), mo->id < firstNew};
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
  const T *find(const klee::ExecutionState &s) const {
    auto it = map.find(&s);
    return it == map.end() ? nullptr : &it->second;
  }
  /// `child` forked from `parent`: its copy of the parent's data, null if none.
  T *branched(const klee::ExecutionState &parent, const klee::ExecutionState &child) {
    auto it = map.find(&parent);
    if (it == map.end())
      return nullptr;
    T copy = it->second; // before inserting: the insert may rehash
    return &(map[&child] = std::move(copy));
  }
  void erase(const klee::ExecutionState &s) { map.erase(&s); }
  auto begin() { return map.begin(); }
  auto end() { return map.end(); }

private:
  std::unordered_map<const klee::ExecutionState *, T> map;
};

} // namespace pspa_plugin
