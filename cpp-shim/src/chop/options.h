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
};

/// --skip-functions, as given.
const std::vector<SkipSpec> &skipSpecs();
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
