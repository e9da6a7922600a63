// --skip-functions=auto[:N]: the call sites to skip, chosen during the run. The profile
// (profile.cpp) counts every call; the core ranks it (pspa::skips, the same ranking as
// `pspa skips`): a site's calls are skipped from its next call on once its earlier calls
// show that skipping would save more than it costs (they fork, or run long, and the paths
// rarely read what they wrote), and it runs again for good once its own recoveries show
// that skipping it does not pay. Sites, not functions: one function's calls from two places
// can differ (a call whose writes the caller reads at once, another whose path ends).

#include "chop/chop.h"

#include "klee/Support/ErrorHandling.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace pspa_plugin {

namespace {
/// Ranks while the profile is young on every change, then at most every this many calls:
/// a ranking builds every site's row.
constexpr std::uint64_t RankEvery = 64;
constexpr std::uint64_t EagerRanks = 64;
/// And only once the run has executed this many instructions per profiled site since the
/// last ranking: a ranking's cost grows with the sites (libosip's 289 took about 1.4 ms
/// each, and it ranked 3,125 times; SQLite's 1,500, about 4.5 ms; single runs). Counted in instructions, not
/// time, so that a run's choices do not depend on the machine's speed.
constexpr std::uint64_t RankInstructionsPerSite = 1000;

} // namespace

void ChopClient::autoChoose(const chop::Site &site) {
  // A skipped unit (every call of the function, or this site): run again once its own
  // recoveries show that skipping does not pay.
  for (chop::Site unit : {chop::Site{site.first, chop::EveryCall}, site}) {
    auto sk = autoSkipped.find(unit);
    if (sk == autoSkipped.end())
      continue;
    chop::FunctionStats &fs = stats[unit.first->getName().str()];
    bool whole = unit.second == chop::EveryCall;
    auto [allSkips, allRecovered] = whole ? std::make_pair(fs.snapshots, fs.recoveries) : fs.bySite[unit.second];
    // Gone on after a stop was due (below): judged on what came after.
    std::uint64_t skips = allSkips - sk->second.skipsBefore, recovered = allRecovered - sk->second.recoveriesBefore;
    // Judged only when the answer may have changed: past the minimum, on new recoveries.
    // Without them the observed share only falls and the unit's row only gains (its skipped
    // calls add nothing; the paths its earlier forks made still end), so "go on" stands;
    // and a row is built from every site's strings, too much for each skipped call.
    if (skips < pspa::skip_min_skips() || recovered == sk->second.judgedRecoveries)
      return;
    sk->second.judgedRecoveries = recovered;
    std::string why(pspa::skip_stop_reason(whole ? profiler->functionRow(unit.first) : profiler->row(unit),
                                           profiler->runInstructions(), profiler->runSeconds(), skips, recovered));
    if (why.empty())
      return;
    // Most recoveries read inside calls the run has not chosen yet: rank now (the rankings
    // wait for work to pass, and the recoveries may have come between two), and if that
    // chooses those calls, the unit goes on, judged afresh: the reads are skipped with them.
    // libosip: the URI's header parser, read inside osip_uri_free.
    if (!sk->second.ranked) {
      sk->second.ranked = true;
      std::set<chop::Site> before;
      for (auto &[s, a] : autoSkipped)
        before.insert(s);
      rankAndChoose(true);
      for (auto &[s, a] : autoSkipped) {
        if (before.count(s))
          continue;
        auto in = fs.recoveredInside.find({unit.second, s.first, s.second});
        std::uint64_t inside = in == fs.recoveredInside.end() ? 0 : in->second;
        if (2 * inside < allRecovered)
          continue;
        AutoSkip &a2 = autoSkipped.at(unit);
        a2.skipsBefore = allSkips;
        a2.recoveriesBefore = allRecovered;
        klee::klee_message("pspa chop: --skip-functions=auto: %s goes on: %llu of its %llu recoveries were read inside calls of %s, "
                           "skipped now",
                           chop::siteName(unit).c_str(), static_cast<unsigned long long>(inside),
                           static_cast<unsigned long long>(allRecovered), chop::siteName(s).c_str());
        return;
      }
      sk = autoSkipped.find(unit);
    }
    autoSkipped.erase(sk);
    if (whole) {
      skip.erase(unit.first);
    } else {
      std::set<unsigned> &lines = skip[unit.first];
      lines.erase(unit.second);
      if (lines.empty())
        skip.erase(unit.first); // an empty set would mean every call
    }
    autoStopped[unit] = why;
    for (auto &[s, fp] : profiler->sitesOf(unit.first))
      if (whole || s.second == unit.second)
        fp->stopped = "skipping it stopped: " + why;
    klee::klee_message("pspa chop: --skip-functions=auto: %s runs again: %s", chop::siteName(unit).c_str(), why.c_str());
    return;
  }
  if (autoSkipped.size() >= autoTop || autoStopped.count(site) ||
      autoStopped.count(chop::Site{site.first, chop::EveryCall}))
    return;
  ++callsSinceRank;
  rankAndChoose(false);
}

void ChopClient::rankAndChoose(bool force) {
  if (autoSkipped.size() >= autoTop)
    return;
  if (!force && (profiler->changes == rankedAt ||
                (ranks >= EagerRanks && (callsSinceRank < RankEvery || profiler->runInstructions() <
                                                                           rankedInstructions + RankInstructionsPerSite * rankedSites))))
    return;
  auto now = std::chrono::steady_clock::now();
  rankedAt = profiler->changes;
  ++ranks;
  callsSinceRank = 0;
  rust::Vec<pspa::ProfileRow> rows = profiler->rows();
  rankedInstructions = profiler->runInstructions();
  rankedSites = rows.size();
  rust::Vec<pspa::SkipVerdict> verdicts =
      pspa::rank_skips(rust::Slice<const pspa::ProfileRow>(rows.data(), rows.size()), profiler->runInstructions(),
                       profiler->runSeconds(), autoTop);
  rankSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - now).count();
  for (const pspa::SkipVerdict &v : verdicts) {
    if (v.verdict != 0 || autoSkipped.size() >= autoTop)
      continue;
    llvm::Function *g = module->getFunction(std::string(v.function));
    if (!g || (!v.whole && v.line == 0))
      continue; // a call with no line cannot be named alone
    chop::Site s{g, v.whole ? chop::EveryCall : v.line};
    // Already chosen, stopped, or named by the user (every call of g, or this line).
    auto named = skip.find(g);
    if (autoSkipped.count(s) || autoStopped.count(s) || autoSkipped.count({g, chop::EveryCall}) ||
        (named != skip.end() && (v.whole || named->second.empty() || named->second.count(v.line))))
      continue;
    std::string chain;
    if (!refuse(g, &chain).empty())
      continue; // the ranking saw the same reason (the profile's `excluded`); kept safe here
    if (!chain.empty())
      checkConstrain.insert(g); // may constrain the input: each call checked (mayAssume)
    if (v.whole)
      skip[g].clear(); // every call
    else
      skip[g].insert(v.line);
    std::uint64_t calls = v.whole ? profiler->functionRow(g).calls : profiler->of(s).calls;
    autoSkipped[s] = {calls, std::string(v.reason)};
    klee::klee_message("pspa chop: --skip-functions=auto: %s is skipped from its call %llu on: %s", chop::siteName(s).c_str(),
                       static_cast<unsigned long long>(calls + 1), std::string(v.reason).c_str());
  }
}

} // namespace pspa_plugin
