// libpspa-klee.so: past-sensitive pointer analysis inside KLEE.
//
// Loaded by the patched KLEE (--plugin=PATH or KLEE_PLUGINS). At every call of a chosen
// function it hands the live state to the Rust core (bridge/src/lib.rs) through a StateView,
// which reads the address space: objects, their allocation sites and types, and the
// pointer values in their fields (concrete values need no query; symbolic ones are
// resolved with KLEE's own solver). Nothing here may stop KLEE: a failed analysis is
// counted and reported once, and KLEE goes on.

#include "clients.h"
#include "state_view.h"
#include "pspa/state_view.h"
#include "pspa-klee/src/lib.rs.h"

#include "klee/Core/Plugin.h"
#include "klee/Module/KInstruction.h"
#include "klee/Module/InstructionInfoTable.h"
#include "klee/Solver/Solver.h"
#include "klee/Solver/SolverCmdLine.h"
#include "klee/Statistics/Statistic.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "lib/Core/AddressSpace.h"
#include "lib/Core/ExecutionState.h"
#include "lib/Core/Executor.h"
#include "lib/Core/Memory.h"
#include "lib/Core/TimingSolver.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

using namespace llvm;

namespace {
enum class Mode { SPA, PSPA };

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
    cl::desc("Give up on a call, conservatively (it counts as failed), once its solve has "
             "offered this many points-to elements to sets: about 0.4 s here for the "
             "default 200000000; 0 means no bound. Deterministic, unlike a time limit"),
    cl::init(200000000ULL), cl::cat(klee::MiscCat));

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

klee::Statistic statCalls("PspaCalls", "PScalls");
klee::Statistic statAnalyses("PspaAnalyses", "PSan");
klee::Statistic statReuses("PspaReuses", "PSre");
klee::Statistic statFailures("PspaFailures", "PSfail");
klee::Statistic statTime("PspaTime", "PStime");

/// Whether `f`'s debug-info source file is selected by one of `prefixes` (see
/// --pspa-analyze-files). Functions without debug info are never selected.
bool definedIn(const Function &f, const std::vector<std::string> &prefixes) {
  const DISubprogram *sp = f.getSubprogram();
  if (!sp)
    return false;
  std::string file = sp->getFilename().str();
  if (file.empty() || file[0] != '/')
    file = sp->getDirectory().str() + "/" + file;
  for (const std::string &p : prefixes) {
    if (p.empty())
      continue;
    if (p[0] == '/' ? file.rfind(p, 0) == 0 : file.find("/" + p) != std::string::npos)
      return true;
  }
  return false;
}

struct FunctionAverage {
  double mod = 0, ref = 0;
  unsigned n = 0;
};

class PspaPlugin;
PspaPlugin *thePlugin;

class PspaPlugin : public klee::Plugin, public pspa_plugin::Host {
public:
  const pspa::Engine &analysisEngine() const override { return **engine; }
  klee::Executor &kleeExecutor() override { return *executor; }
  bool wholeProgram() const override { return PspaMode == Mode::SPA; }
  klee::TimingSolver &ownSolver() override {
    if (!solver) {
      // KLEE's default chain, without its query logs.
      std::unique_ptr<klee::Solver> s = klee::createCoreSolver(klee::CoreSolverToUse);
      s = klee::createCexCachingSolver(std::move(s));
      s = klee::createCachingSolver(std::move(s));
      s = klee::createIndependentSolver(std::move(s));
      solver = std::make_unique<klee::TimingSolver>(std::move(s));
    }
    return *solver;
  }
  pspa_plugin::Answer analyze(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                              std::vector<klee::ref<klee::Expr>> &args, const std::vector<pspa_plugin::Answer> &pending,
                              bool keepPost) override {
    std::uint64_t firstNew = 0;
    return analyzeCall(state, ki, f, args, firstNew, /*checked=*/false, &pending, keepPost);
  }
  /// The post-states an analysis at `state` joins: those of the skipped calls pending on
  /// its path (chopping), or `given`.
  rust::Box<pspa::PendingPosts> pendingPosts(const klee::ExecutionState &state,
                                             const std::vector<pspa_plugin::Answer> *given) {
    rust::Box<pspa::PendingPosts> posts = pspa::pending_new();
    std::vector<pspa_plugin::Answer> onPath;
    if (!given && chop)
      onPath = chop->pendingAnswers(state);
    for (const pspa_plugin::Answer &a : given ? *given : onPath) {
      if (!a)
        pspa::pending_add_failed(*posts);
      if (!a || !pspa::pending_add(*posts, **a))
        ++joinFailures;
    }
    if (pspa::pending_len(*posts) > 0)
      ++joinedAnalyses;
    return posts;
  }
  /// Analyses that joined pending skips' post-states, and those that failed because a
  /// pending skip had none (conservative answers).
  std::uint64_t joinedAnalyses = 0, joinFailures = 0;
  pspa_plugin::Answer wholeProgramAnswer(Function *f) override {
    return std::make_shared<rust::Box<pspa::CallAnswer>>(
        pspa::engine_whole_program_answer(**engine, reinterpret_cast<std::size_t>(f)));
  }
  std::unique_ptr<klee::TimingSolver> solver;
  std::unique_ptr<pspa_plugin::ResolveClient> resolve;
  std::unique_ptr<pspa_plugin::WitClient> wit;
  std::unique_ptr<pspa_plugin::ChopClient> chop;
  klee::Executor *executor = nullptr;
  Module *module = nullptr;
  rust::Box<pspa::Engine> *engine = nullptr;
  bool active = false;
  std::set<std::string> chosen;
  /// What reading states keeps across calls (casts' types, the globals, counts).
  pspa_plugin::ReadContext reading;
  /// pspa-calls.csv, written as calls happen (a run with millions of calls stays flat).
  std::unique_ptr<llvm::raw_fd_ostream> csv;
  bool csvTried = false;
  std::uint64_t callsSeen = 0;
  std::map<std::string, FunctionAverage> averages;
  unsigned dumped = 0;
  bool warned = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::unique_ptr<pspa_plugin::CheckClient> check;

  void moduleReady(klee::Executor &ex, Module &m) override {
    executor = &ex;
    module = &m;
    reading.executor = &ex;
    reading.module = &m;
    reading.host = this;
    start = std::chrono::steady_clock::now();
    for (auto &f : PspaAnalyze)
      chosen.insert(f);
    if (!PspaAnalyzeFiles.empty()) {
      unsigned n = 0;
      for (Function &fn : m)
        if (!fn.isDeclaration() && definedIn(fn, PspaAnalyzeFiles)) {
          chosen.insert(fn.getName().str());
          ++n;
        }
      klee::klee_message("pspa: --pspa-analyze-files selects %u functions", n);
      if (n == 0)
        klee::klee_warning("pspa: --pspa-analyze-files: no function with debug info is defined there");
    }
    // Clients on by environment too, so that KLEE's own test suite can run with them.
    auto envOn = [](const char *name) {
      const char *v = getenv(name);
      return v && std::string(v) == "1";
    };
    if (envOn("KLEE_PLUGIN_PSPA_ANALYZE_ALL"))
      PspaAnalyzeAll = true;
    if (envOn("KLEE_PLUGIN_PSPA_CHECK"))
      pspa_plugin::CheckClient::enable();
    if (envOn("KLEE_PLUGIN_PSPA_RESOLVE"))
      pspa_plugin::ResolveClient::enable();
    if (envOn("KLEE_PLUGIN_PSPA_WIT"))
      pspa_plugin::WitClient::enable();
    active = PspaAnalyzeAll || !chosen.empty() || pspa_plugin::ResolveClient::enabled() ||
             pspa_plugin::WitClient::enabled() || pspa_plugin::ChopClient::enabled();
    if (!active)
      return;
    for (auto &f : chosen)
      if (!m.getFunction(f))
        klee::klee_warning("pspa: --pspa-analyze: no function %s in the module", f.c_str());
    // Strings cross as lossy UTF-8: a strict conversion would abort KLEE on odd bytes.
    rust::String name = rust::String::lossy(m.getModuleIdentifier());
    rust::Vec<rust::String> allocators;
    for (auto &a : PspaAllocators) {
      if (!m.getFunction(a))
        klee::klee_warning("pspa: --pspa-allocator: no function %s in the module", a.c_str());
      allocators.push_back(rust::String::lossy(a));
    }
    pspa::EngineOptions options{PspaMode == Mode::SPA,
                                !PspaNoReuse,
                                PspaAllGlobals,
                                PspaEager,
                                PspaMaxWork,
                                PspaKeepPointsTo || pspa_plugin::ResolveClient::enabled(),
                                std::move(allocators)};
    engine = new rust::Box<pspa::Engine>(pspa::engine_new(reinterpret_cast<std::size_t>(&m), name, options));
    std::string err(pspa::engine_error(**engine));
    if (!err.empty()) {
      klee::klee_warning("pspa: cannot analyse this module, analysis off: %s", err.c_str());
      active = false;
    }
    if (active && pspa_plugin::CheckClient::enabled())
      check = std::make_unique<pspa_plugin::CheckClient>(*this);
    if (active && pspa_plugin::ResolveClient::enabled())
      resolve = std::make_unique<pspa_plugin::ResolveClient>(*this);
    if (active && pspa_plugin::WitClient::enabled())
      wit = std::make_unique<pspa_plugin::WitClient>(*this, m);
    if (active && pspa_plugin::ChopClient::enabled())
      chop = std::make_unique<pspa_plugin::ChopClient>(*this, m);
    if (active && !PspaDumpSnapshots.empty()) {
      sys::fs::create_directories(PspaDumpSnapshots);
      if (!pspa::engine_write_module(**engine, rust::String::lossy(PspaDumpSnapshots + "/final.bc")))
        klee::klee_warning("pspa: cannot write %s/final.bc", PspaDumpSnapshots.c_str());
    }
  }

  bool beforeCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                  std::vector<klee::ref<klee::Expr>> &arguments) override {
    bool body = active && f && !f->isDeclaration() && !f->isIntrinsic();
    if (wit && body && wit->atPoint(state, f)) {
      pspa_plugin::KleeStateView view(reading, state, f, arguments);
      rust::Box<pspa::PendingPosts> pending = pendingPosts(state, nullptr);
      wit->compute(**engine, view, *pending, state, f);
    }
    // A skipped call: no frame, so no answer for it and nothing for the other clients. A
    // held call (declared, waiting for a recovery) runs again later.
    if (chop && active && f && !f->isIntrinsic() && chop->beforeCall(state, ki, f, arguments))
      return true;
    // After chopping's decision: a held call comes back here and is counted when it runs.
    if (check && f)
      check->beforeCall(state, f);
    bool wanted = body && (PspaAnalyzeAll || chosen.count(f->getName().str()));
    pspa_plugin::Answer answer;
    std::uint64_t firstNew = 0;
    if (wanted)
      answer = analyzeCall(state, ki, f, arguments, firstNew);
    else if (body && resolve && resolve->wants(f)) {
      // A snapshot for the resolution client only. In SPA mode the whole-program answer,
      // which reads nothing; else an analysed call like any other.
      if (PspaMode == Mode::SPA) {
        firstNew = klee::MemoryObject(0).id;
        answer = std::make_shared<rust::Box<pspa::CallAnswer>>(
            pspa::engine_whole_program_answer(**engine, reinterpret_cast<std::size_t>(f)));
      } else {
        answer = analyzeCall(state, ki, f, arguments, firstNew);
      }
    }
    if (resolve)
      resolve->beforeCall(state, f, arguments, answer, firstNew);
    return false;
  }

  /// Analyse the call of `f` starting in `state`: the answer (null if the analysis failed),
  /// and in `firstNew` the first id of the objects allocated after it.
  pspa_plugin::Answer analyzeCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                                  std::vector<klee::ref<klee::Expr>> &arguments, std::uint64_t &firstNew,
                                  bool checked = true, const std::vector<pspa_plugin::Answer> *pending = nullptr,
                                  bool keepPost = false) {
    ++statCalls;
    auto t0 = std::chrono::steady_clock::now();
    // Before the view: analysing pending skips reads their snapshots.
    rust::Box<pspa::PendingPosts> posts = pendingPosts(state, pending);
    pspa_plugin::KleeStateView view(reading, state, f, arguments);
    std::string dump;
    if (!PspaDumpSnapshots.empty())
      dump = PspaDumpSnapshots + "/call-" + std::to_string(++dumped) + ".json";
    // Objects allocated from here on have larger ids (KLEE numbers objects in order; the
    // probe takes the next number).
    firstNew = klee::MemoryObject(0).id;
    pspa::CallReport r;
    pspa_plugin::Answer answer = std::make_shared<rust::Box<pspa::CallAnswer>>(
        pspa::engine_analyze(**engine, view, reinterpret_cast<std::size_t>(f), rust::String::lossy(dump), *posts,
                             keepPost, r));
    if (check && checked)
      check->analysed(state, pspa::answer_ok(**answer) ? answer : nullptr, firstNew, f);
    statTime += std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
    if (!r.ok) {
      ++statFailures;
      if (!warned) {
        // Conservative: the call's effects are unknown (a client recovers / resolves all).
        klee::klee_warning("pspa: analysis of a call of %s failed, treating it as unknown "
                           "(further failures are only counted): %s",
                           f->getName().str().c_str(), std::string(r.message).c_str());
        warned = true;
      }
    } else if (r.reused) {
      ++statReuses;
    } else {
      ++statAnalyses;
    }
    record(f->getName().str(), ki->info ? ki->info->line : 0, r);
    return pspa::answer_ok(**answer) ? answer : nullptr;
  }

  /// One line of pspa-calls.csv, written now; per-function averages kept.
  void record(const std::string &fn, unsigned line, const pspa::CallReport &r) {
    ++callsSeen;
    if (r.ok) {
      FunctionAverage &a = averages[fn];
      a.mod += r.mod_stripped;
      a.ref += r.ref_stripped;
      a.n++;
    }
    if (!csvTried) {
      csvTried = true;
      // KLEE's own handler (getHandler gives it const; opening a file does not change it).
      csv = const_cast<klee::InterpreterHandler &>(executor->getHandler()).openOutputFile("pspa-calls.csv");
      if (!csv)
        klee::klee_warning("pspa: cannot write pspa-calls.csv");
      else
        *csv << "function,line,mode,ok,reused,mod,ref,mod_stripped,ref_stripped,projected_objects,micros,unknown,read_objects,answer_bytes\n";
    }
    if (csv)
      *csv << fn << ',' << line << ',' << (PspaMode == Mode::SPA ? "spa" : "pspa") << ',' << (r.ok ? 1 : 0) << ','
           << (r.reused ? 1 : 0) << ',' << r.mod_size << ',' << r.ref_size << ',' << r.mod_stripped << ','
           << r.ref_stripped << ',' << r.projected_objects << ',' << r.micros << ',' << (r.unknown ? 1 : 0) << ','
           << r.read_objects << ',' << r.answer_bytes << '\n';
  }

  void onCast(klee::ExecutionState &state, klee::KInstruction *ki, klee::ref<klee::Expr> value) override {
    if (!active)
      return;
    auto *ce = dyn_cast<klee::ConstantExpr>(value);
    auto *pt = dyn_cast<PointerType>(ki->inst->getType());
    if (!ce || !pt || ce->getWidth() != klee::Context::get().getPointerWidth())
      return;
    klee::ObjectPair op;
    if (!state.addressSpace.resolveOne(ce, op) || op.first->address != ce->getZExtValue())
      return;
    if (reading.castTypes.count(op.first->id))
      return;
    Type *t = pt->getPointerElementType();
    if (pspa_plugin::layoutable(t) && !t->isIntegerTy(8))
      reading.castTypes[op.first->id] = t;
  }

  void afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo) override {
    if (wit)
      wit->afterAlloc(state, mo);
    if (chop)
      chop->afterAlloc(state, mo);
  }

  bool beforeFree(klee::ExecutionState &state, const klee::MemoryObject *mo) override {
    return chop && chop->beforeFree(state, mo);
  }

  klee::Searcher *wrapSearcher(klee::Executor &, klee::Searcher *searcher) override {
    return chop ? chop->wrap(searcher) : searcher;
  }

  bool beforeInstruction(klee::ExecutionState &state, klee::KInstruction *ki) override {
    return chop && chop->beforeInstruction(state, ki);
  }

  void afterReturn(klee::ExecutionState &state) override {
    if (chop)
      chop->afterReturn(state);
    if (check)
      check->afterReturn(state);
    if (wit)
      wit->afterReturn(state);
  }

  bool onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) override {
    // Held accesses run again later: the other clients see them then.
    if (chop && chop->onMemoryAccess(state, ki, mo, offset, bytes, isWrite))
      return true;
    if (wit)
      wit->onMemoryAccess(state, ki, mo, offset, bytes, isWrite);
    if (check)
      check->onMemoryAccess(state, ki, mo, offset, bytes, isWrite);
    return false;
  }

  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) override {
    if (check)
      check->stateBranched(parent, child);
    if (resolve)
      resolve->stateBranched(parent, child);
    if (wit)
      wit->stateBranched(parent, child);
    if (chop)
      chop->stateBranched(parent, child);
  }

  void stateTerminated(klee::ExecutionState &state) override {
    if (check)
      check->stateTerminated(state);
    if (resolve)
      resolve->stateTerminated(state);
    if (wit)
      wit->stateTerminated(state);
    if (chop)
      chop->stateTerminated(state);
  }

  bool resolutionFilter(klee::ExecutionState &state, klee::KInstruction *ki, klee::ref<klee::Expr> address,
                        klee::ResolutionFilter &filter) override {
    return resolve && resolve->resolutionFilter(state, ki, address, filter);
  }

  void runFinished(klee::InterpreterHandler &handler) override;
};

void PspaPlugin::runFinished(klee::InterpreterHandler &handler) {
  if (!active)
    return;
  pspa::EngineStats s = pspa::engine_stats(**engine);
  double secs = statTime.getValue() / 1e6;
  const char *mode = PspaMode == Mode::SPA ? "spa" : "pspa";
  llvm::errs() << "KLEE: done: pspa calls analysed = " << callsSeen << " (" << mode << ")\n";
  if (PspaMode == Mode::PSPA) {
    double ratio = s.invocations ? double(s.reuse_hits) / s.invocations : 0.0;
    llvm::errs() << "KLEE: done: pspa analyses = " << s.analyses << ", reused = " << s.reuse_hits
                 << " (reuse ratio " << format("%.4f", ratio) << ")\n";
  }
  llvm::errs() << "KLEE: done: pspa failures = " << statFailures.getValue();
  if (s.over_budget)
    llvm::errs() << " (" << s.over_budget << " over the work budget)";
  llvm::errs() << "\n";
  if (joinedAnalyses)
    llvm::errs() << "KLEE: done: pspa analyses joined with pending skips' post-states = " << joinedAnalyses
                 << " (failed for want of one = " << joinFailures << ")\n";
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  llvm::errs() << "KLEE: done: pspa time = " << format("%.3f", secs) << " s ("
               << format("%.2f", total > 0 ? 100.0 * secs / total : 0.0) << "% of the run)\n";
  if (PspaStats) {
    llvm::errs() << "KLEE: done: pspa slots: concrete = " << reading.reads.concrete
                 << ", symbolic addresses = " << reading.reads.symbolicAddress
                 << ", symbolic data = " << reading.reads.symbolicData
                 << ", unknown (pointer-typed input) = " << reading.reads.unknownTyped
                 << ", unknown (too many targets) = " << reading.reads.unknownTooMany
                 << ", unknown (over the read budget) = " << reading.reads.unknownBudget << "\n";
    llvm::errs() << "KLEE: done: pspa reuse misses: new function = " << s.miss_new_function
                 << ", different objects = " << s.miss_objects << ", different edges = " << s.miss_edges
                 << ", no isomorphism = " << s.miss_no_iso << "\n";
    llvm::errs() << "KLEE: done: pspa time: reading = " << format("%.3f", s.read_micros / 1e6)
                 << " s, checking = " << format("%.3f", s.check_micros / 1e6)
                 << " s, solving = " << format("%.3f", s.solve_micros / 1e6) << " s (" << s.solver_runs
                 << " solver runs)\n";
    llvm::errs() << "KLEE: done: pspa projection: objects met = " << s.objects_met
                 << ", read = " << s.objects_read << ", rounds = " << s.fetch_rounds << "\n";
  }
  // Every counter of the done lines, typed, in one file: what tables read (a reworded
  // sentence must not empty a table cell).
  llvm::json::Object json{{"schema", "pspa.stats/1"}, {"mode", mode}};
  json["analysis"] = llvm::json::Object{{"calls", callsSeen},
                                        {"analyses", s.analyses},
                                        {"reused", s.reuse_hits},
                                        {"invocations", s.invocations},
                                        {"failures", statFailures.getValue()},
                                        {"over_budget", s.over_budget},
                                        {"joined", joinedAnalyses},
                                        {"join_failures", joinFailures},
                                        {"time_s", secs},
                                        {"run_s", total},
                                        {"read_s", s.read_micros / 1e6},
                                        {"check_s", s.check_micros / 1e6},
                                        {"solve_s", s.solve_micros / 1e6},
                                        {"solver_runs", s.solver_runs},
                                        {"objects_met", s.objects_met},
                                        {"objects_read", s.objects_read},
                                        {"fetch_rounds", s.fetch_rounds},
                                        {"answers", s.answers},
                                        {"answer_bytes", s.answer_bytes},
                                        {"answer_bytes_max", s.answer_bytes_max}};
  if (check)
    check->report(json);
  if (resolve)
    resolve->report(json);
  if (wit)
    wit->report(json);
  if (chop)
    chop->report(handler, json);
  if (auto out = handler.openOutputFile("pspa-stats.json"))
    *out << llvm::json::Value(std::move(json)) << "\n";
  else
    klee::klee_warning("pspa: cannot write pspa-stats.json");
  if (PspaStats)
    llvm::errs() << "KLEE: done: pspa answers: " << s.answers << ", heap bytes mean = "
                 << (s.answers ? s.answer_bytes / s.answers : 0) << ", max = " << s.answer_bytes_max << "\n";
  if (csv) {
    for (auto &kv : averages)
      *csv << "# average," << kv.first << ',' << mode << ",calls=" << kv.second.n << ",mod_stripped="
           << format("%.2f", kv.second.mod / kv.second.n) << ",ref_stripped="
           << format("%.2f", kv.second.ref / kv.second.n) << '\n';
    csv->flush();
  }
}
} // namespace


extern "C" void klee_plugin_init() {
  // dlopen of a path loaded already gives the same library, whose init would register a
  // second plugin (and its run.stats columns) over the same options.
  if (thePlugin)
    klee::klee_error("pspa: the plugin is loaded twice (--plugin and KLEE_PLUGINS name it more than once)");
  thePlugin = new PspaPlugin();
  klee::registerPlugin(thePlugin);
  for (klee::Statistic *s : {&statCalls, &statAnalyses, &statReuses, &statFailures, &statTime})
    klee::registerPluginStatistic(s);
  for (klee::Statistic *s : pspa_plugin::resolveStatistics())
    klee::registerPluginStatistic(s);
  for (klee::Statistic *s : pspa_plugin::chopStatistics())
    klee::registerPluginStatistic(s);
}
