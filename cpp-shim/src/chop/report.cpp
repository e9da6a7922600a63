// Chopping's summary: KLEE: done: lines, its part of pspa-stats.json, and chop.csv (per
// skipped function: snapshots, recoveries, and the loads that triggered them).

#include "chop/chop.h"

#include "klee/Core/Interpreter.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using llvm::format;

namespace pspa_plugin {

std::string ChopClient::autoNote(const std::string &name) const {
  // Per call site: `L: skipped from call N: why` or `L: skipped, then run again: why`.
  std::string note;
  llvm::Function *f = module->getFunction(name);
  auto unit = [](const chop::Site &s) { return s.second == chop::EveryCall ? std::string("every call") : std::to_string(s.second); };
  for (auto &[s, a] : autoSkipped)
    if (s.first == f)
      note += (note.empty() ? "" : "; ") + unit(s) + ": skipped from call " + std::to_string(a.calls + 1) + ": " + a.reason;
  for (auto &[s, why] : autoStopped)
    if (s.first == f)
      note += (note.empty() ? "" : "; ") + unit(s) + ": skipped, then run again: " + why;
  return note;
}

void ChopClient::report(klee::InterpreterHandler &handler, llvm::json::Object &json) {
  llvm::errs() << "KLEE: done: recovery states = " << recoveries << "\n";
  llvm::errs() << "KLEE: done: created snapshots = " << snapshots << "\n";
  std::uint64_t resultUsed = 0, recoveryInstructions = 0;
  double snapshotSeconds = 0, analysisSeconds = 0;
  for (auto &[name, s] : stats) {
    resultUsed += s.resultUsed;
    recoveryInstructions += s.recoveryInstructions;
    snapshotSeconds += s.snapshotSeconds;
    analysisSeconds += s.analysisSeconds;
  }
  llvm::json::Object chopJson{{"recovery_states", recoveries},
                                    {"snapshots", snapshots},
                                    {"recoveries_ended_before_returning", failedRecoveries},
                                    {"symbolic_write_recoveries", symbolicWriteRecoveries},
                                    {"result_used", resultUsed},
                                    {"joined_mod_sets", joinedAnalyses},
                                    {"external_call_recoveries", externalRecoveries},
                                    {"free_write_recoveries", freeWriteRecoveries},
                                    {"writes_after_free", writesAfterFree},
                                    {"fallbacks", fallbacks},
                                    {"replayed_effects", replayedEffects},
                                    {"triggered_recoveries", triggeredRecoveries},
                                    {"spurious_recoveries", spuriousRecoveries},
                                    {"refused_skips", refusedSkips},
                                    {"invoke_calls", invokeCalls},
                                    {"end_recoveries", endRecoveries},
                                    {"dropped_at_end", droppedAtEnd},
                                    {"private_local_answers", privateLocalAnswers},
                                    {"constrained_calls_run", constrainedCalls},
                                    {"memory_cap_calls", memoryCapCalls},
                                    {"huge_object_calls", hugeObjectCalls},
                                    {"snapshot_s", snapshotSeconds},
                                    {"skip_analysis_s", analysisSeconds},
                                    {"recovery_instructions", recoveryInstructions}};
  // auto and profile below add theirs before it is stored
  llvm::errs() << "KLEE: done: pspa chop: recoveries ended before returning = " << failedRecoveries
               << ", recovered before a write at a symbolic offset = " << symbolicWriteRecoveries
               << ", skipped calls whose result is used = " << resultUsed
               << ", mod sets joined with older pending skips' post-states = " << joinedAnalyses
               << ", recovered before an external call = " << externalRecoveries
               << ", recovered before a write into an object it may free = " << freeWriteRecoveries
               << ", writes after a skipped free = " << writesAfterFree
               << ", recovery paths run on from the snapshot (allocation clash, double free, external call) = "
               << fallbacks << "\n";
  llvm::errs() << "KLEE: done: pspa chop costs (timings vary from run to run): snapshots " << format("%.3f", snapshotSeconds)
               << " s, analyses of skipped calls " << format("%.3f", analysisSeconds)
               << " s; of recovering: instructions run by recovery states = " << recoveryInstructions << "\n";
  llvm::errs() << "KLEE: done: pspa chop: recovered calls replayed into younger recoveries instead of run again = "
               << replayedEffects << "\n";
  llvm::errs() << "KLEE: done: pspa chop: recoveries waited for by a load or a free = " << triggeredRecoveries
               << ", of which the call wrote none of those bytes (spurious) = " << spuriousRecoveries << "\n";
  llvm::errs() << "KLEE: done: pspa chop: functions not skipped (noreturn, or constrain the input) = " << refusedSkips
               << ", calls by invoke run (not skipped) = " << invokeCalls
               << ", recovered before the path ends (the call may end it) = " << endRecoveries
               << ", calls run because they may constrain the input (past-sensitive) = " << constrainedCalls
               << ", calls run over --max-memory (no snapshot) = " << memoryCapCalls
               << ", calls run on paths holding a huge object = " << hugeObjectCalls << "\n";
  llvm::errs() << "KLEE: done: pspa chop: pending calls dropped at a clean path end (exit: their writes could only be output) = "
               << droppedAtEnd << ", loads of locals whose address never leaves their function (no analysis) = "
               << privateLocalAnswers << "\n";
  if (profiler) {
    profiler->write(handler);
    rust::Vec<pspa::ProfileRow> rows = profiler->rows();
    rust::Vec<pspa::SkipVerdict> ranked =
        pspa::rank_skips(rust::Slice<const pspa::ProfileRow>(rows.data(), rows.size()), profiler->runInstructions(),
                         profiler->runSeconds(), autoTop ? autoTop : pspa::skip_default_top());
    std::string proposed(pspa::skip_line(rust::Slice<const pspa::SkipVerdict>(ranked.data(), ranked.size())));
    llvm::errs() << "KLEE: done: pspa chop profile: calls = " << profiler->profiledCalls
                 << ", analysed = " << profiler->analyses << " (failed " << profiler->failedAnalyses
                 << "), watches dropped (over 16 on a path) = " << profiler->droppedWatches
                 << ", proposed at the end (pspa skips chop-profile.csv) = "
                 << (proposed.empty() ? "nothing" : "--skip-functions=" + proposed) << "\n";
    chopJson["profile"] = llvm::json::Object{{"calls", profiler->profiledCalls},
                                         {"analysed", profiler->analyses},
                                         {"failed", profiler->failedAnalyses},
                                         {"dropped_watches", profiler->droppedWatches},
                                         {"unfinished_paths", profiler->unfinishedPaths}};
  }
  if (autoTop) {
    auto name = chop::siteName;
    std::string skipped, stopped;
    llvm::json::Array skippedJson, stoppedJson;
    for (auto &[s, a] : autoSkipped) {
      skipped += (skipped.empty() ? "" : ", ") + name(s) + " (from call " + std::to_string(a.calls + 1) + ")";
      skippedJson.push_back(name(s));
    }
    for (auto &[s, why] : autoStopped) {
      stopped += (stopped.empty() ? "" : ", ") + name(s) + " (" + why + ")";
      stoppedJson.push_back(name(s));
    }
    llvm::errs() << "KLEE: done: pspa chop auto: skipped = " << (skipped.empty() ? "none" : skipped)
                 << "; skipped, then run again = " << (stopped.empty() ? "none" : stopped) << "; rankings = " << ranks
                 << " (" << llvm::format("%.3f", rankSeconds) << " s)\n";
    chopJson["auto"] = llvm::json::Object{{"skipped", std::move(skippedJson)},
                                          {"stopped", std::move(stoppedJson)},
                                          {"rankings", ranks},
                                          {"rank_s", rankSeconds}};
  }
  json["chop"] = std::move(chopJson);
  auto out = handler.openOutputFile("chop.csv");
  if (!out)
    return;
  *out << "function,snapshots,recoveries,result_used,recovering_accesses,dropped_at_end,snapshot_s,analysis_s,"
          "recovery_instructions,auto\n";
  for (auto &[name, s] : stats) {
    std::string loads;
    for (auto &[at, n] : s.triggers)
      loads += (loads.empty() ? "" : " ") + at + "x" + std::to_string(n);
    *out << name << ',' << s.snapshots << ',' << s.recoveries << ',' << s.resultUsed << ",\"" << loads << "\","
         << s.dropped << ',' << format("%.6f", s.snapshotSeconds) << ',' << format("%.6f", s.analysisSeconds) << ','
         << s.recoveryInstructions << ",\"" << autoNote(name) << "\"\n";
  }
}

} // namespace pspa_plugin
