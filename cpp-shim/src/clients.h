// The clients of the analysis inside KLEE (one file each), and what they may ask of the
// plugin (plugin.cpp), which owns the engine and reads states.
#pragma once

#include "pspa-klee/src/lib.rs.h"

#include "klee/Core/Plugin.h"
#include "klee/Expr/Expr.h"

#include "llvm/Support/raw_ostream.h"

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
  explicit WitClient(Host &host);
  /// Before a call of `f` (with a body) in `state`: whether the colours are to be computed
  /// here (then call `compute` with a view of the state).
  bool atPoint(const klee::ExecutionState &state, llvm::Function *f) const;
  void compute(pspa::Engine &engine, const pspa::StateView &view, klee::ExecutionState &state, llvm::Function *f);
  void afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo);
  void onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite);
  /// A function returned: the WIT call's end on this path.
  void afterReturn(const klee::ExecutionState &state);
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child);
  void stateTerminated(klee::ExecutionState &state);
  /// `KLEE: done: wit ...` lines.
  void report();

private:
  struct PathCount {
    /// The colour of the last heap field allocated on the path (0: none yet).
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
  std::unordered_map<const klee::ExecutionState *, PathCount> paths;
  std::uint64_t transitions = 0, pathsEnded = 0;
  std::uint64_t checked = 0, violations = 0, uncoloured = 0;
  unsigned warned = 0;
  pspa::WitReport result;
  std::unique_ptr<llvm::raw_fd_ostream> csv;
};

} // namespace pspa_plugin
