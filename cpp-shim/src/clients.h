// The clients of the analysis inside KLEE (one file each), and what they may ask of the
// plugin (plugin.cpp), which owns the engine and reads states.
#pragma once

#include "pspa-klee/src/lib.rs.h"

#include "klee/Core/Plugin.h"
#include "klee/Expr/Expr.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace llvm {
class Function;
}
namespace klee {
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
};

/// The live object `mo` as the answers name it (`existed`: before `firstNew`).
pspa::LiveObjectFfi liveObject(const klee::MemoryObject *mo, std::uint64_t firstNew);

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
  /// `KLEE: done: pspa resolve: ...`.
  void report();
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
  std::unordered_map<const klee::ExecutionState *, std::vector<Frame>> perState;
  /// Functions whose calls take a snapshot (lazy: after a symbolic dereference in them).
  std::unordered_map<const llvm::Function *, bool> marked;
  std::unordered_map<const llvm::Function *, bool> modelledBodies;
  /// Beyond the run.stats columns (resolve.cpp's statistics).
  std::uint64_t pruned = 0, throughArguments = 0, noSnapshot = 0, validationQueries = 0;
  bool warnedMismatch = false;
};

} // namespace pspa_plugin
