// --skip-functions=auto[:N]: the functions to skip, chosen during the run. The profile
// (profile.cpp) counts every call; the core ranks it (pspa::skips, the same ranking as
// `pspa skips`): a function is skipped from its next call once its earlier calls show
// that it forks (or runs long) and that the paths rarely read what it wrote, and it runs
// again for good once its own recoveries show that skipping it does not pay.

#include "chop/chop.h"

#include "klee/Support/ErrorHandling.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace pspa_plugin {

namespace {
/// Ranks while the profile is young on every change, then at most every this many calls:
/// a ranking builds every function's row.
constexpr std::uint64_t RankEvery = 64;
constexpr std::uint64_t EagerRanks = 64;
} // namespace

void ChopClient::autoChoose(llvm::Function *f) {
  auto sk = autoSkipped.find(f);
  if (sk != autoSkipped.end()) {
    chop::FunctionStats &fs = stats[f->getName().str()];
    std::string why(pspa::skip_stop_reason(profiler->row(f), profiler->runInstructions(), profiler->runSeconds(),
                                           fs.snapshots, fs.recoveries));
    if (why.empty())
      return;
    autoSkipped.erase(sk);
    skip.erase(f);
    autoStopped[f] = why;
    chop::FunctionProfile &fp = profiler->of(f);
    fp.judged = true;
    fp.excluded = "skipping it stopped: " + why;
    klee::klee_message("pspa chop: --skip-functions=auto: %s runs again: %s", f->getName().str().c_str(),
                       why.c_str());
    return;
  }
  if (autoSkipped.size() >= autoTop || autoStopped.count(f))
    return;
  ++callsSinceRank;
  if (profiler->changes == rankedAt || (ranks >= EagerRanks && callsSinceRank < RankEvery))
    return;
  rankedAt = profiler->changes;
  ++ranks;
  callsSinceRank = 0;
  rust::Vec<pspa::ProfileRow> rows = profiler->rows();
  rust::Vec<pspa::SkipVerdict> verdicts =
      pspa::rank_skips(rust::Slice<const pspa::ProfileRow>(rows.data(), rows.size()), profiler->runInstructions(),
                       profiler->runSeconds(), autoTop);
  for (const pspa::SkipVerdict &v : verdicts) {
    if (v.verdict != 0 || autoSkipped.size() >= autoTop)
      continue;
    llvm::Function *g = module->getFunction(std::string(v.function));
    if (!g || autoSkipped.count(g) || autoStopped.count(g) || skip.count(g))
      continue;
    std::string chain;
    if (!refuse(g, &chain).empty())
      continue; // the ranking saw the same reason; asserted by its verdict, kept safe here
    if (!chain.empty())
      checkConstrain.insert(g); // may constrain the input: each call checked (mayAssume)
    skip[g];
    autoSkipped[g] = profiler->of(g).calls;
    autoReasons[g] = std::string(v.reason);
    klee::klee_message("pspa chop: --skip-functions=auto: %s is skipped from its call %llu on: %s",
                       g->getName().str().c_str(), static_cast<unsigned long long>(profiler->of(g).calls + 1),
                       std::string(v.reason).c_str());
  }
}

} // namespace pspa_plugin
