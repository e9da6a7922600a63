// Chopping's KLEE options (options.cpp), read through these functions.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace pspa_plugin::chop {

/// One `--skip-functions` item: `F` or `F:L1/L2/...`.
struct SkipSpec {
  std::string name;
  std::set<unsigned> lines; // empty: every call
  /// `auto[:N]`: the functions are chosen during the run, at most `top` at once.
  bool automatic = false;
  unsigned top = 0;
};

/// --skip-functions, as given.
const std::vector<SkipSpec> &skipSpecs();
/// The most functions `--skip-functions=auto[:N]` skips at once; 0 without `auto`.
unsigned autoTop();
/// --pspa-chop-profile: chop-profile.csv (also written with `auto`).
bool profileOn();
/// --pspa-chop-profile-sample: calls analysed per function for the profile.
unsigned profileSample();
/// --pspa-chop-searcher: recovery states first.
bool recoveriesFirst();
/// --pspa-chop-replay: recovered calls' effects replayed into younger recoveries.
bool replayEffects();
/// --pspa-chop-skipped-errors: at a clean end, pending skips that may end the path are
/// recovered (not dropped).
bool skippedErrors();

} // namespace pspa_plugin::chop

namespace klee {
class Statistic;
}
namespace pspa_plugin::chop {
/// The run.stats columns chopping counts (ChSnap, ChRec).
klee::Statistic &snapshotsStat();
klee::Statistic &recoveriesStat();
} // namespace pspa_plugin::chop
