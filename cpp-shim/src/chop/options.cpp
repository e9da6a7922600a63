// Chopping's KLEE options. A bad --skip-functions item stops KLEE when the options are
// parsed, before any output.

#include <algorithm>

#include "chop/chop.h"
#include "chop/options.h"

#include "klee/Statistics/Statistic.h"
#include "klee/Support/OptionCategories.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;
using pspa_plugin::chop::SkipSpec;

namespace {
/// Parses an item when the options are parsed, so that a bad one stops KLEE at start-up
/// with LLVM's "for the --skip-functions option: ..." (exit code 1), before any output.
struct SkipSpecParser : public cl::parser<SkipSpec> {
  explicit SkipSpecParser(cl::Option &o) : cl::parser<SkipSpec>(o) {}
  bool parse(cl::Option &o, StringRef, StringRef arg, SkipSpec &out) {
    auto [name, lines] = arg.split(':');
    out.automatic = false;
    out.top = 0;
    if (name == "auto") {
      // auto[:N]: chosen during the run (pspa::skips' ranking over the online profile).
      out.name = "auto";
      out.lines.clear();
      out.automatic = true;
      out.top = static_cast<unsigned>(pspa::skip_default_top()); // pspa skips' --top default
      if (arg.find(':') != StringRef::npos && (lines.getAsInteger(10, out.top) || out.top == 0))
        return o.error("'" + arg + "': auto:N takes N, the most functions skipped at once (a positive number)");
      return false;
    }
    if (name.empty())
      return o.error("'" + arg + "': no function name before ':'");
    out.name = name.str();
    out.lines.clear();
    if (arg.find(':') == StringRef::npos)
      return false;
    if (lines.empty())
      return o.error("'" + arg + "': no line after ':' (F:LINE[/LINE...])");
    SmallVector<StringRef, 4> parts;
    lines.split(parts, '/');
    for (StringRef l : parts) {
      unsigned n;
      // getAsInteger takes the whole text: `12abc`, `12:13`, `-1` and values past 2^32 fail.
      if (l.empty() || l.getAsInteger(10, n) || n == 0)
        return o.error("'" + arg + "': '" + l + "' is not a source line (a positive decimal number)");
      out.lines.insert(n);
    }
    return false;
  }
};

cl::list<SkipSpec, bool, SkipSpecParser> SkipFunctions(
    "skip-functions", cl::CommaSeparated,
    cl::desc("Chopped symbolic execution (paper 6.2): do not run the calls of these functions; "
             "F:L1/L2 skips the calls at those source lines only. A call is run later (recovered, "
             "from a snapshot) when the path reads bytes it may have written (--pspa-mode: "
             "whole-program or past-sensitive mod sets)"),
    cl::value_desc("F[:LINE[/LINE...]],... | auto[:N]"), cl::cat(klee::MiscCat));

cl::opt<bool> PspaChopProfile(
    "pspa-chop-profile",
    cl::desc("Write chop-profile.csv: per function, the instructions and forks inside its calls, the instructions "
             "of the paths those forks made, and how often the path read what a sample of its calls may have "
             "written (their mod sets, per --pspa-mode) or used their result: what skipping it would have saved "
             "and the recoveries it would have made. `pspa skips chop-profile.csv` ranks them (docs/skips.md)"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<unsigned> PspaChopProfileSample(
    "pspa-chop-profile-sample",
    cl::desc("With --pspa-chop-profile or --skip-functions=auto: calls of each function analysed and watched "
             "after they return (default 32)"),
    cl::init(32), cl::cat(klee::MiscCat));

enum class ChopSearch { On, Off };
cl::opt<ChopSearch> PspaChopSearcher(
    "pspa-chop-searcher", cl::desc("With --skip-functions: run recovery states first (default on)"),
    cl::values(clEnumValN(ChopSearch::On, "on", "recovery states first"),
               clEnumValN(ChopSearch::Off, "off", "KLEE's searcher alone")),
    cl::init(ChopSearch::On), cl::cat(klee::MiscCat));

cl::opt<bool> PspaChopReplay(
    "pspa-chop-replay",
    cl::desc("With --skip-functions: a recovery whose snapshot predates calls the path has recovered since "
             "replays their recorded effects instead of running them again inside it (default on)"),
    cl::init(true), cl::cat(klee::MiscCat));

cl::opt<bool> PspaChopSkippedErrors(
    "pspa-chop-skipped-errors",
    cl::desc("With --skip-functions: when a path ends without an error (exit), first recover the pending "
             "skipped calls that may themselves end it (an abort, a failed check, an exit inside them), so that "
             "errors inside skipped functions are reported as KLEE alone reports them. Off (default): they are "
             "dropped, as every other pending call is there, and only errors outside skipped functions are "
             "searched for (Chopper's semantics). Before an error is reported, such calls are always recovered"),
    cl::init(false), cl::cat(klee::MiscCat));

klee::Statistic statSnapshots("ChopSnapshots", "ChSnap");
klee::Statistic statRecoveries("ChopRecoveries", "ChRec");
} // namespace

namespace pspa_plugin {

std::vector<klee::Statistic *> chopStatistics() { return {&statSnapshots, &statRecoveries}; }

namespace chop {
klee::Statistic &snapshotsStat() { return statSnapshots; }
klee::Statistic &recoveriesStat() { return statRecoveries; }

const std::vector<SkipSpec> &skipSpecs() {
  static std::vector<SkipSpec> specs; // cl::list's storage is not a std::vector
  specs.assign(SkipFunctions.begin(), SkipFunctions.end());
  return specs;
}
unsigned autoTop() {
  unsigned top = 0;
  for (const SkipSpec &s : SkipFunctions)
    if (s.automatic)
      top = std::max(top, s.top);
  return top;
}
bool profileOn() { return PspaChopProfile; }
unsigned profileSample() { return PspaChopProfileSample; }
bool recoveriesFirst() { return PspaChopSearcher == ChopSearch::On; }
bool replayEffects() { return PspaChopReplay; }
bool skippedErrors() { return PspaChopSkippedErrors; }
} // namespace chop

bool ChopClient::enabled() { return !SkipFunctions.empty() || PspaChopProfile; }

} // namespace pspa_plugin
