// The plugin's own options, in KLEE's Miscellaneous category.

#include "options.h"
#include "check/check.h"
#include "resolve/resolve.h"
#include "wit/wit.h"

#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"

#include <cstdlib>

using namespace llvm;

namespace {
enum class Mode { SPA, PSPA };
enum class Fallback { WholeProgram, Unknown };

cl::opt<Mode> PspaMode(
    "pspa-mode", cl::desc("Pointer analysis used at analysed calls (default: pspa)"),
    cl::values(clEnumValN(Mode::SPA, "spa", "whole-program static analysis, computed once"),
               clEnumValN(Mode::PSPA, "pspa", "past-sensitive, from the live state at each call")),
    cl::init(Mode::PSPA), cl::cat(klee::MiscCat));

cl::list<std::string> PspaAnalyze(
    "pspa-analyze", cl::desc("Analyse every call of these functions (comma-separated)"),
    cl::CommaSeparated, cl::value_desc("F,G,..."), cl::cat(klee::MiscCat));

cl::list<std::string> PspaAnalyzeFiles(
    "pspa-analyze-files",
    cl::desc("Analyse every call of the functions defined in these source files (debug "
             "info; comma-separated). An absolute path selects the files under it; a "
             "relative one, the files whose path contains it at a '/' (e.g. lib/ or "
             "src/parser.c)"),
    cl::CommaSeparated, cl::value_desc("DIR_OR_PREFIX,..."), cl::cat(klee::MiscCat));

cl::opt<bool> PspaAnalyzeAll(
    "pspa-analyze-all",
    cl::desc("Analyse every call of a function with a body (paper 6.1). Also turned on by "
             "the environment variable KLEE_PLUGIN_PSPA_ANALYZE_ALL=1"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<std::string> PspaDumpSnapshots(
    "pspa-dump-snapshots",
    cl::desc("Write a pspa.snapshot/1 file per analysed call into DIR, with the module "
             "KLEE executes as DIR/final.bc (replay: pspa modref --snapshot FILE)"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(klee::MiscCat), cl::callback([](const std::string &dir) {
      // At option parsing, before KLEE makes its output directory: a directory that
      // cannot be written would otherwise fail every analysis quietly.
      std::error_code ec = sys::fs::create_directories(dir);
      int fd = -1;
      SmallString<128> probe;
      if (!ec)
        ec = sys::fs::createUniqueFile(dir + "/.pspa-probe-%%%%%%", fd, probe);
      if (ec)
        klee::klee_error("pspa: --pspa-dump-snapshots=%s: cannot write there: %s", dir.c_str(), ec.message().c_str());
      sys::Process::SafelyCloseFileDescriptor(fd);
      sys::fs::remove(probe);
    }));

cl::opt<bool> PspaNoReuse("pspa-no-reuse",
                          cl::desc("Analyse every call, even in a state isomorphic to an "
                                   "earlier one (no summary reuse)"),
                          cl::init(false), cl::cat(klee::MiscCat));

cl::opt<bool> PspaFollowExits(
    "pspa-follow-exits",
    cl::desc("Follow calls that end the process (exit and its family; with no setjmp and "
             "no landing pad in the module, a function with no ret and an unreachable) "
             "into what they run, atexit handlers included. By default an "
             "analysed call's sets are what it does when it returns to its caller: nothing "
             "after the call sees the rest, and --pspa-check and --pspa-resolve do not hold "
             "accesses made inside such code to the enclosing calls' answers (WIT always "
             "follows them)"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<bool> PspaNoLastAnswers(
    "pspa-no-last-answers",
    cl::desc("Read the state at every analysed call, even when it still holds what the "
             "function's last analysis read (whose answer is otherwise given at once)"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<bool> PspaNoReadCache(
    "pspa-no-read-cache",
    cl::desc("Read every word of an object the analysis reads, even when its contents and "
             "the address space's objects are as when it was last read (whose words are "
             "otherwise given as they were then)"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<bool> PspaAllGlobals(
    "pspa-all-globals",
    cl::desc("Project each call's state from every global (the paper's roots), not only "
             "from the globals the callee's code can name: the slow reference the default "
             "is checked against"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<bool> PspaEager(
    "pspa-eager-projection",
    cl::desc("Read every object the call can reach before solving, instead of only the "
             "objects whose contents the analysis reads: the slow reference the default "
             "is checked against"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<unsigned long long> PspaMaxWork(
    "pspa-max-work",
    cl::desc("Give up on a call once its solve has offered this many points-to elements to "
             "sets: about 0.05 s here for the default 20000000; 0 means no bound. "
             "Deterministic, unlike a time limit. The call then gets --pspa-fallback's answer"),
    cl::init(20000000ULL), cl::cat(klee::MiscCat));

cl::opt<unsigned long long> PspaTrialWork(
    "pspa-trial-work",
    cl::desc("The first time a solve of a function needs more than this many points-to "
             "elements, the call gets --pspa-fallback's answer (counted as over the work budget) and the "
             "function's later calls get --pspa-max-work: a function called once that "
             "needs a solve of most of the program (main, a driver loop) goes over the budget "
             "for a tenth of the cost (default 2000000; 0, or not below --pspa-max-work: off)"),
    cl::init(2000000ULL), cl::cat(klee::MiscCat));

cl::opt<bool> PspaWriteless(
    "pspa-writeless",
    cl::desc("Answer a call of a function that writes nothing outside its own frame in any "
             "state, or only static objects and no pointer into them (errno; no store, "
             "intrinsic or library call writes anything else; its callees are such "
             "functions) without reading the state: those statics its mod-set, an empty free set, its "
             "ref-set not computed. Off under --pspa-check (which checks ref-sets and "
             "cross-checks the claim against full analyses), with resolution (which needs "
             "points-to sets) and --pspa-no-reuse (default: true)"),
    cl::init(true), cl::cat(klee::MiscCat));

cl::opt<Fallback> PspaFallback(
    "pspa-fallback",
    cl::desc("What a call gets when the past-sensitive analysis cannot answer it (over the "
             "work budget, a pending skip without a post-state, a state it could not read); "
             "panics always give unknown (default: whole-program)"),
    cl::values(clEnumValN(Fallback::WholeProgram, "whole-program",
                          "its function's whole-program (SPA) answer: sound for every state, "
                          "coarser; the whole-program analysis runs once per run, on first need"),
               clEnumValN(Fallback::Unknown, "unknown",
                          "no answer: the call counts as failed and every client treats it "
                          "as touching anything")),
    cl::init(Fallback::WholeProgram), cl::cat(klee::MiscCat));

cl::list<std::string> PspaAllocators(
    "pspa-allocator",
    cl::desc("Treat the defined function NAME as an allocator (comma-separated, repeatable): "
             "each of its calls is an allocation site, instead of the allocation inside its "
             "body that all its callers share (gnulib's xmalloc). Objects KLEE allocates in "
             "such a body after a call's snapshot are then answered conservatively. Replay "
             "dumped snapshots with the same pspa modref --allocator"),
    cl::value_desc("NAME"), cl::CommaSeparated, cl::cat(klee::MiscCat));

cl::opt<bool> PspaKeepPointsTo(
    "pspa-keep-points-to",
    cl::desc("Keep in each analysed call's answer the points-to set of every pointer the call "
             "dereferences, as the resolution and WIT clients need (more memory per answer: "
             "--pspa-stats prints the answers' sizes)"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<bool> PspaStats(
    "pspa-stats",
    cl::desc("Print how the plugin read the states (pointer slots by kind) and why reuse "
             "missed, as KLEE: done: lines"),
    cl::init(false), cl::cat(klee::MiscCat));

} // namespace

namespace pspa_plugin {

PluginOptions pluginOptions() {
  // Clients on by environment too, so that KLEE's own test suite can run with them.
  auto envOn = [](const char *name) {
    const char *v = getenv(name);
    return v && std::string(v) == "1";
  };
  if (envOn("KLEE_PLUGIN_PSPA_CHECK"))
    CheckClient::enable();
  if (envOn("KLEE_PLUGIN_PSPA_RESOLVE"))
    ResolveClient::enable();
  if (envOn("KLEE_PLUGIN_PSPA_WIT"))
    WitClient::enable();
  PluginOptions o;
  o.spa = PspaMode == Mode::SPA;
  o.analyze.assign(PspaAnalyze.begin(), PspaAnalyze.end());
  o.analyzeFiles.assign(PspaAnalyzeFiles.begin(), PspaAnalyzeFiles.end());
  o.analyzeAll = PspaAnalyzeAll || envOn("KLEE_PLUGIN_PSPA_ANALYZE_ALL");
  o.dumpSnapshots = PspaDumpSnapshots;
  o.noReuse = PspaNoReuse;
  o.lastAnswers = !PspaNoReuse && !PspaNoLastAnswers;
  o.readCache = !PspaNoReadCache;
  o.allGlobals = PspaAllGlobals;
  o.eager = PspaEager;
  o.followExits = PspaFollowExits;
  o.fallback = PspaFallback == Fallback::WholeProgram;
  o.writeless = PspaWriteless;
  o.maxWork = PspaMaxWork;
  o.trialWork = PspaTrialWork;
  o.allocators.assign(PspaAllocators.begin(), PspaAllocators.end());
  o.keepPointsTo = PspaKeepPointsTo;
  o.stats = PspaStats;
  return o;
}

} // namespace pspa_plugin
