// Symbolic pointer resolution pruning (paper 6.4, `--pspa-resolve`): resolve.cpp.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "clients.h"

namespace klee {
class Statistic;
class TimingSolver;
} // namespace klee

namespace pspa_plugin {

/// The resolution client's run.stats columns.
std::vector<klee::Statistic *> resolveStatistics();

class ResolveClient : public Client {
public:
  /// Whether --pspa-resolve is on (then the engine keeps points-to sets).
  static bool enabled();
  /// Turn --pspa-resolve on (the environment variable KLEE_PLUGIN_PSPA_RESOLVE=1).
  static void enable();
  explicit ResolveClient(Host &host) : host(host) {}
  /// Whether calls of `f` are to be analysed now (lazy snapshots mark functions).
  bool wantsAnalysis(llvm::Function *f) const override;
  /// --pspa-resolve-max-work: a snapshot is worth the queries its resolutions save.
  std::uint64_t analysisBudget(llvm::Function *f) const override;
  /// Every call (declarations and intrinsics too): keeps the frames, each with the call's
  /// analysis (its snapshot) if the plugin made one.
  void callRuns(CallSite &c, const CallAnalysis &a) override;
  /// Called by the plugin directly: no other client filters resolutions.
  bool resolutionFilter(klee::ExecutionState &state, klee::KInstruction *ki, klee::ref<klee::Expr> address,
                        klee::ResolutionFilter &filter);
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) override;
  void stateTerminated(klee::ExecutionState &state) override;
  /// `KLEE: done: pspa resolve: ...`, and the same counters into `json`.
  void report(klee::InterpreterHandler &handler, llvm::json::Object &json) override;

private:
  struct Frame {
    llvm::Function *f = nullptr;
    /// The call had a symbolic pointer argument: its snapshot would not know what the
    /// argument points to, so resolutions inside look further out.
    bool symbolicPointerArg = false;
    Answer answer;
    std::uint64_t firstNew = 0;
    /// A call that ends the process, which the answers of the frames out from it do not
    /// follow (`engine_not_followed`): their sets say nothing of pointers under it.
    bool ends = false;
    /// A resolution took its answer (counted once per frame: `Mark::used`).
    bool used = false;
    /// The state's symbolic arrays when the call began (`ExecutionState::symbolics`):
    /// data made symbolic later may be any pointer, which no set of the answer says.
    std::size_t symbolics = 0;
  };
  std::vector<Frame> &frames(klee::ExecutionState &state);
  /// Whether the analysis replaces `f`'s body by a library model (cached per function).
  bool bodyModelled(const llvm::Function *f);
  /// The arguments such a body stores (`store`) or loads through, per its model; none if
  /// the model does not say (cached: KLEE's memcpy body asks once per byte).
  const std::optional<std::vector<std::size_t>> &bodyAccessArgs(const llvm::Function *f, bool store);
  /// Whether one of `values`' sets in `answer` may point into `mo`.
  klee::ResolutionFilter::Keep keep(const Answer &answer, std::uint64_t firstNew,
                                    const std::vector<std::size_t> &values, const klee::MemoryObject *mo);
  /// --pspa-resolve-validate: ask whether `address` may point into the skipped `mo`
  /// (a mismatch if so).
  void validate(klee::ExecutionState &state, klee::TimingSolver *solver, klee::ref<klee::Expr> address,
                klee::KInstruction *ki, const klee::MemoryObject *mo);

  Host &host;
  PerState<std::vector<Frame>> perState;
  /// Lazy snapshots: functions whose calls take one (marked after a symbolic dereference
  /// in them; retired when resolutions use fewer than one of RetireAfter of them).
  struct Mark {
    bool marked = false, retired = false;
    std::uint64_t taken = 0, used = 0;
    /// The solver work its snapshots cost, and the
    /// queries resolutions answered from them saved (skipped objects; one per listing).
    std::uint64_t work = 0, saved = 0;
  };
  static constexpr std::uint64_t RetireAfter = 16;
  /// What a saved query is worth in solver work: about 2 ms of solving (make's eval:
  /// 20M elements in 85 ms, slicing included), a resolution query's solver time on make.
  static constexpr std::uint64_t WorkPerSavedQuery = 500000;
  /// Retire `m`'s function once its snapshots' work passes --pspa-resolve-max-work plus
  /// what they saved.
  void charge(Mark &m);
  std::unordered_map<const llvm::Function *, Mark> marks;
  std::uint64_t retired = 0, retiredCost = 0, givenUp = 0;
  std::unordered_map<const llvm::Function *, bool> modelledBodies;
  std::map<std::pair<const llvm::Function *, bool>, std::optional<std::vector<std::size_t>>> bodyArgs;
  /// Beyond the run.stats columns (resolve.cpp's statistics).
  std::uint64_t pruned = 0, throughArguments = 0, fromOuter = 0, noSnapshot = 0, validationQueries = 0,
                underEndingCalls = 0, freshSymbolic = 0;
  /// --pspa-resolve-compare: resolutions compared; their queries pruned and unpruned, on
  /// the same states; those where pruning asked more (must be 0).
  std::uint64_t compared = 0, prunedAskedMore = 0, compareIncomplete = 0;
  std::pair<std::uint64_t, std::uint64_t> comparedQueries{0, 0};
  bool warnedMismatch = false;
};

} // namespace pspa_plugin
