// The analysis' own report. Every counter of the done lines is also in pspa-stats.json,
// typed: what the pipeline's tables read (a reworded sentence must not empty a table cell).

#include "report.h"

#include "klee/Core/Interpreter.h"
#include "klee/Support/ErrorHandling.h"

#include "llvm/Support/Format.h"

using namespace llvm;

namespace pspa_plugin {

void CallLog::record(klee::InterpreterHandler &handler, const std::string &fn, unsigned line,
                     const pspa::CallReport &r) {
  ++seen;
  // The averages are the past-sensitive analysis' own: whole-program fallbacks left out.
  if (r.ok && !r.whole_program) {
    Average &a = averages[fn];
    a.mod += r.mod_stripped;
    a.ref += r.ref_stripped;
    a.n++;
  }
  if (!tried) {
    tried = true;
    csv = handler.openOutputFile("pspa-calls.csv");
    if (!csv)
      klee::klee_warning("pspa: cannot write pspa-calls.csv");
    else
      *csv << "function,line,mode,ok,reused,mod,ref,mod_stripped,ref_stripped,projected_objects,micros,unknown,read_objects,answer_bytes,work,rounds,solve_micros,whole_program,writeless\n";
  }
  if (csv)
    *csv << fn << ',' << line << ',' << (spa ? "spa" : "pspa") << ',' << (r.ok ? 1 : 0) << ',' << (r.reused ? 1 : 0)
         << ',' << r.mod_size << ',' << r.ref_size << ',' << r.mod_stripped << ',' << r.ref_stripped << ','
         << r.projected_objects << ',' << r.micros << ',' << (r.unknown ? 1 : 0) << ',' << r.read_objects << ','
         << r.answer_bytes << ',' << r.work << ',' << r.rounds << ',' << r.solve_micros << ',' << (r.whole_program ? 1 : 0)
         << ',' << (r.writeless ? 1 : 0) << '\n';
}

void CallLog::finish() {
  if (!csv)
    return;
  for (auto &kv : averages)
    *csv << "# average," << kv.first << ',' << (spa ? "spa" : "pspa") << ",calls=" << kv.second.n << ",mod_stripped="
         << format("%.2f", kv.second.mod / kv.second.n) << ",ref_stripped="
         << format("%.2f", kv.second.ref / kv.second.n) << '\n';
  csv->flush();
}

void reportAnalysis(const pspa::EngineStats &s, const AnalysisTotals &t, const ReadStats &reads, const ReadCache &cache, bool verbose,
                    llvm::json::Object &json) {
  const char *mode = t.spa ? "spa" : "pspa";
  llvm::errs() << "KLEE: done: pspa calls analysed = " << t.calls << " (" << mode << ")\n";
  if (!t.spa) {
    double ratio = s.invocations ? double(s.reuse_hits) / s.invocations : 0.0;
    llvm::errs() << "KLEE: done: pspa analyses = " << s.analyses << ", reused = " << s.reuse_hits
                 << " (reuse ratio " << format("%.4f", ratio) << ")\n";
  }
  llvm::errs() << "KLEE: done: pspa failures = " << t.failures;
  // With the whole-program fallback, calls over the budget are not failures: the next
  // line counts them.
  if (s.over_budget && !t.fallback) {
    llvm::errs() << " (" << s.over_budget << " over the work budget";
    if (s.over_trial)
      llvm::errs() << ", " << s.over_trial << " of them the first of their function over the trial budget";
    llvm::errs() << ")";
  }
  if (t.givenUp)
    llvm::errs() << "; given up over a client's budget (not failures) = " << t.givenUp;
  llvm::errs() << "\n";
  if (t.fallback && (s.whole_program_calls || s.over_budget)) {
    llvm::errs() << "KLEE: done: pspa whole-program answers = " << s.whole_program_calls
                 << " (calls the past-sensitive analysis could not answer; " << s.over_budget
                 << " over the work budget";
    if (s.over_trial)
      llvm::errs() << ", " << s.over_trial << " of them the first of their function over the trial budget";
    // The whole-program analysis runs when a client first asks a fallback answer.
    if (!s.whole_program_ran)
      llvm::errs() << "; whole-program analysis not run: no client asked these answers)\n";
    else
      llvm::errs() << "; whole-program analysis " << format("%.3f", s.whole_program_micros / 1e6)
                   << " s, functions answered = " << s.whole_program_functions << ")\n";
  }
  if (t.joined)
    llvm::errs() << "KLEE: done: pspa analyses joined with pending skips' post-states = " << t.joined
                 << " (not joined for want of one = " << t.joinFailures << ")\n";
  llvm::errs() << "KLEE: done: pspa time = " << format("%.3f", t.seconds) << " s ("
               << format("%.2f", t.runSeconds > 0 ? 100.0 * t.seconds / t.runSeconds : 0.0) << "% of the run)\n";
  if (verbose) {
    llvm::errs() << "KLEE: done: pspa slots: concrete = " << reads.concrete
                 << ", symbolic addresses = " << reads.symbolicAddress << ", symbolic data = " << reads.symbolicData
                 << ", unknown (pointer-typed input) = " << reads.unknownTyped
                 << ", unknown (too many targets) = " << reads.unknownTooMany
                 << ", unknown (read from memory, not a pointer field) = " << reads.unknownUntyped
                 << ", unknown (over the read budget) = " << reads.unknownBudget
                 << ", unknown (given up on before) = " << reads.unknownGivenUp
                 << "; objects given from the read cache, unread = " << reads.cachedObjects << ", of them with other bound objects than last = " << cache.rebound
                 << ", with symbolic words read again = " << cache.symbolicAgain << " (kept: "
                 << cache.byObject.size() << " objects, " << cache.words << " words)";
    if (cache.verify)
      llvm::errs() << " (each read too under --pspa-check: " << cache.verified << " compared, "
                   << cache.mismatches << " mismatches)";
    llvm::errs() << "\n";
    llvm::errs() << "KLEE: done: pspa last answers: " << s.unchanged
                 << " calls answered without reading (the state held what one of their function's recent analyses "
                    "read; checks in a state with the entry's bound objects = "
                 << t.unchangedSameBound << "; objects written since whose pointers were the same = "
                 << t.unchangedCompared << "; calls not kept, their function's answers almost never given again = "
                 << t.lastLowYield << ")\n";
    llvm::errs() << "KLEE: done: pspa writeless calls = " << s.writeless
                 << " (answered without reading: their functions write nothing outside their frame; of them "
                 << s.writeless_statics
                 << " but static objects, errno); "
                    "full analyses of such functions = "
                 << s.writeless_checked << ", finding a write = " << s.writeless_contradicted << "\n";
    llvm::errs() << "KLEE: done: pspa reuse misses: new function = " << s.miss_new_function
                 << ", different objects = " << s.miss_objects << ", different edges = " << s.miss_edges
                 << ", no isomorphism = " << s.miss_no_iso
                 << "; calls not looked up, their function's lookups almost never hit = " << s.low_yield_skips << "\n";
    llvm::errs() << "KLEE: done: pspa time: reading = " << format("%.3f", s.read_micros / 1e6)
                 << " s, checking = " << format("%.3f", s.check_micros / 1e6)
                 << " s, solving = " << format("%.3f", s.solve_micros / 1e6) << " s (" << s.solver_runs
                 << " solver runs, " << s.body_rounds << " again with a body the slice lacked)\n";
    llvm::errs() << "KLEE: done: pspa projection: objects met = " << s.objects_met << ", read = " << s.objects_read
                 << ", rounds = " << s.fetch_rounds << "\n";
    llvm::errs() << "KLEE: done: pspa answers: " << s.answers << ", heap bytes mean = "
                 << (s.answers ? s.answer_bytes / s.answers : 0) << ", max = " << s.answer_bytes_max << "\n";
  }
  json["schema"] = "pspa.stats/1";
  json["mode"] = mode;
  json["analysis"] = llvm::json::Object{{"calls", t.calls},
                                        {"analyses", s.analyses},
                                        {"reused", s.reuse_hits},
                                        {"invocations", s.invocations},
                                        {"failures", t.failures},
                                        {"over_budget", s.over_budget},
                                        {"over_trial", s.over_trial},
                                        {"given_up", t.givenUp},
                                        {"fallback", t.fallback},
                                        {"whole_program_calls", s.whole_program_calls},
                                        {"whole_program_functions", s.whole_program_functions},
                                        {"whole_program_s", s.whole_program_micros / 1e6},
                                        {"whole_program_ran", s.whole_program_ran},
                                        {"joined", t.joined},
                                        {"join_failures", t.joinFailures},
                                        {"time_s", t.seconds},
                                        {"own_queries", ownQueriesStat().getValue()},
                                        {"run_s", t.runSeconds},
                                        {"read_s", s.read_micros / 1e6},
                                        {"check_s", s.check_micros / 1e6},
                                        {"solve_s", s.solve_micros / 1e6},
                                        {"solver_runs", s.solver_runs},
                                        {"body_rounds", s.body_rounds},
                                        {"unchanged", s.unchanged},
                                        {"writeless", s.writeless},
                                        {"writeless_statics", s.writeless_statics},
                                        {"writeless_checked", s.writeless_checked},
                                        {"writeless_contradicted", s.writeless_contradicted},
                                        {"unchanged_compared", t.unchangedCompared},
                                        {"unchanged_same_bound", t.unchangedSameBound},
                                        {"last_low_yield", t.lastLowYield},
                                        {"objects_met", s.objects_met},
                                        {"objects_read", s.objects_read},
                                        {"fetch_rounds", s.fetch_rounds},
                                        {"answers", s.answers},
                                        {"answer_bytes", s.answer_bytes},
                                        {"answer_bytes_max", s.answer_bytes_max},
                                        {"miss_new_function", s.miss_new_function},
                                        {"miss_objects", s.miss_objects},
                                        {"low_yield_skips", s.low_yield_skips},
                                        {"miss_edges", s.miss_edges},
                                        {"miss_no_iso", s.miss_no_iso}};
  json["slots"] = llvm::json::Object{{"concrete", reads.concrete},
                                     {"symbolic_address", reads.symbolicAddress},
                                     {"symbolic_data", reads.symbolicData},
                                     {"unknown_typed", reads.unknownTyped},
                                     {"unknown_too_many", reads.unknownTooMany},
                                     {"unknown_untyped", reads.unknownUntyped},
                                     {"unknown_budget", reads.unknownBudget},
                                     {"unknown_given_up", reads.unknownGivenUp},
                                     {"cached_objects", reads.cachedObjects},
                                     {"cache_rebound", cache.rebound},
                                     {"cache_symbolic_again", cache.symbolicAgain},
                                     {"cache_verified", cache.verified},
                                     {"cache_mismatches", cache.mismatches}};
}

void writeStats(klee::InterpreterHandler &handler, llvm::json::Object json) {
  if (auto out = handler.openOutputFile("pspa-stats.json"))
    *out << llvm::json::Value(std::move(json)) << "\n";
  else
    klee::klee_warning("pspa: cannot write pspa-stats.json");
}

} // namespace pspa_plugin
