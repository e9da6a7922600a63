// What the plugin reports of the analysis itself (report.cpp): pspa-calls.csv, one line per
// analysed call written as it happens, and the summary (KLEE: done: lines and the
// "analysis" object of pspa-stats.json). The clients report their own parts.
#pragma once

#include "pspa-klee/src/lib.rs.h"
#include "state_view.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace klee {
class InterpreterHandler;
}

namespace pspa_plugin {

/// pspa-calls.csv, written as calls happen (a run with millions of calls stays flat), with
/// per-function averages at the end.
class CallLog {
public:
  explicit CallLog(bool spa) : spa(spa) {}
  /// One line for the call of `fn` at `line`.
  void record(klee::InterpreterHandler &handler, const std::string &fn, unsigned line, const pspa::CallReport &r);
  /// The averages, and the file flushed.
  void finish();
  std::uint64_t calls() const { return seen; }

private:
  struct Average {
    double mod = 0, ref = 0;
    unsigned n = 0;
  };
  bool spa;
  std::unique_ptr<llvm::raw_fd_ostream> csv;
  bool tried = false;
  std::uint64_t seen = 0;
  std::map<std::string, Average> averages;
};

/// The run's totals of the analysis, beside the engine's own statistics.
struct AnalysisTotals {
  bool spa = false;
  /// --pspa-fallback=whole-program: calls over the work budget are answered, not failed.
  bool fallback = false;
  std::uint64_t calls = 0, failures = 0;
  /// Calls analysed for a client only and given up over its budget (CallAnalysis::overBudget).
  std::uint64_t givenUp = 0;
  /// Analyses that joined pending skips' post-states, and those that not joined for want of one.
  std::uint64_t joined = 0, joinFailures = 0;
  /// Recent answers given again: objects written since whose pointers were the same.
  std::uint64_t unchangedCompared = 0;
  /// Last answers' checks in a state with the entry's bound objects (LastAnswers::sameBound).
  std::uint64_t unchangedSameBound = 0;
  /// Calls not recorded for the last answers: their function's entries almost never served.
  std::uint64_t lastLowYield = 0;
  double seconds = 0, runSeconds = 0;
};

/// The `KLEE: done: pspa ...` lines (`verbose`: --pspa-stats' too) and `json`'s "schema",
/// "mode" and "analysis" members.
void reportAnalysis(const pspa::EngineStats &s, const AnalysisTotals &t, const ReadStats &reads, const ReadCache &cache, bool verbose,
                    llvm::json::Object &json);
/// The pspa-stats.json file, once every client has added its part.
void writeStats(klee::InterpreterHandler &handler, llvm::json::Object json);

} // namespace pspa_plugin
