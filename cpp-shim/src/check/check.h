// --pspa-check: every analysed call checked against what it really does (check.cpp).
#pragma once

#include "clients.h"

namespace pspa_plugin {

/// Every load and store inside an analysed call, on every path until the call returns,
/// checked against the call's answer.
class CheckClient : public Client {
public:
  static bool enabled();
  /// Turn --pspa-check on (the environment variable KLEE_PLUGIN_PSPA_CHECK=1).
  static void enable();
  explicit CheckClient(Host &host) : host(host) {}
  /// Counts the declared calls inside checked calls (their accesses are not seen), and
  /// checks an analysed call until it returns (nothing to check if its analysis failed).
  void callRuns(CallSite &c, const CallAnalysis &a) override;
  void afterReturn(klee::ExecutionState &state) override;
  bool onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) override;
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) override;
  void stateTerminated(klee::ExecutionState &state) override;
  /// `KLEE: done: pspa check: ...`, and the same counters into `json`.
  void report(klee::InterpreterHandler &handler, llvm::json::Object &json) override;

private:
  /// An analysed call being checked on one path, until it returns.
  struct CheckedCall {
    Answer answer; // shared by the states forked inside the call
    std::size_t depth; // stack depth while the call runs: its frame is at depth - 1
    std::uint64_t firstNew; // objects with a smaller id existed when the call was analysed
    llvm::Function *f;
    /// Not a checked call: a call that ends the process, which the enclosing calls'
    /// answers do not follow (`engine_not_followed`). Accesses under it are not theirs.
    bool ends = false;
  };
  struct Stats {
    std::uint64_t calls = 0;          // analysed calls checked (their answer held)
    std::uint64_t failedCalls = 0;    // analysed calls that failed: nothing to check
    std::uint64_t accesses = 0;       // loads and stores checked (per enclosing analysed call)
    std::uint64_t outside = 0;        // of those, outside the call's mod/ref: must be 0
    std::uint64_t locals = 0;         // to locals of the call's own activations (not effects)
    std::uint64_t ending = 0;         // under a call that ends the process (not the call's)
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

} // namespace pspa_plugin
