// Write Integrity Testing (paper 6.3, `--pspa-wit`): wit.cpp.
#pragma once

#include "clients.h"

#include "llvm/Support/raw_ostream.h"

namespace pspa_plugin {

/// Computes the colours once per run, at the WIT point (the first call of --pspa-wit-at=F,
/// or the first call after the first read of symbolic input), writes wit.json / wit.csv,
/// counts colour transitions between consecutive heap allocations, and with
/// --pspa-wit-check checks every write against its colour.
class WitClient : public Client {
public:
  static bool enabled();
  /// Turn --pspa-wit and --pspa-wit-check on (the environment variable KLEE_PLUGIN_PSPA_WIT=1).
  static void enable();
  WitClient(Host &host, llvm::Module &m);
  /// At the WIT point (a call of a function with a body), the colours are computed from
  /// the state there, joined with the skipped calls pending on its path.
  void callReached(CallSite &c) override;
  void afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo) override;
  bool onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) override;
  /// A function returned: the WIT call's end on this path.
  void afterReturn(klee::ExecutionState &state) override;
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) override;
  void stateTerminated(klee::ExecutionState &state) override;
  /// `KLEE: done: wit ...` lines, and the same counters into `json`.
  void report(klee::InterpreterHandler &handler, llvm::json::Object &json) override;

private:
  bool atPoint(llvm::Function *f) const;
  void compute(pspa::Engine &engine, const pspa::StateView &view, const pspa::PendingPosts &pending,
               klee::ExecutionState &state, llvm::Function *f);
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
  std::string point; // the function at whose call the colours were computed
  std::unique_ptr<llvm::raw_fd_ostream> csv;
};

} // namespace pspa_plugin
