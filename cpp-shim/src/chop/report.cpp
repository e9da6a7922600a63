// Chopping's summary: KLEE: done: lines, its part of pspa-stats.json, and chop.csv (per
// skipped function: snapshots, recoveries, and the loads that triggered them).

#include "chop/chop.h"

#include "klee/Core/Interpreter.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using llvm::format;

namespace pspa_plugin {

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
  json["chop"] = llvm::json::Object{{"recovery_states", recoveries},
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
  auto out = handler.openOutputFile("chop.csv");
  if (!out)
    return;
  *out << "function,snapshots,recoveries,result_used,recovering_accesses,dropped_at_end,snapshot_s,analysis_s,"
          "recovery_instructions\n";
  for (auto &[name, s] : stats) {
    std::string loads;
    for (auto &[at, n] : s.triggers)
      loads += (loads.empty() ? "" : " ") + at + "x" + std::to_string(n);
    *out << name << ',' << s.snapshots << ',' << s.recoveries << ',' << s.resultUsed << ",\"" << loads << "\","
         << s.dropped << ',' << format("%.6f", s.snapshotSeconds) << ',' << format("%.6f", s.analysisSeconds) << ','
         << s.recoveryInstructions << "\n";
  }
}

} // namespace pspa_plugin
