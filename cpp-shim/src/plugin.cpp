// libpspa-klee.so: past-sensitive pointer analysis inside KLEE.
//
// Loaded by the patched KLEE (--plugin=PATH or KLEE_PLUGINS). At every call of a chosen
// function it hands the live state to the Rust core (bridge/src/lib.rs) through a StateView,
// which reads the address space: objects, their allocation sites and types, and the
// pointer values in their fields (concrete values need no query; symbolic ones are
// resolved with KLEE's own solver). Nothing here may stop KLEE: a failed analysis is
// counted and reported once, and KLEE goes on.
//
// This file is the dispatcher: it owns the engine, analyses the calls the options choose,
// and hands every hook to the clients in one order (clients.h says why that order).

#include "check/check.h"
#include "chop/chop.h"
#include "last_answers.h"
#include "options.h"
#include "report.h"
#include "resolve/resolve.h"
#include "state_view.h"
#include "wit/wit.h"
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
#include <optional>
#include <unordered_map>
#include <vector>

using namespace llvm;

namespace {
klee::Statistic statCalls("PspaCalls", "PScalls");
klee::Statistic statAnalyses("PspaAnalyses", "PSan");
klee::Statistic statReuses("PspaReuses", "PSre");
klee::Statistic statFailures("PspaFailures", "PSfail");
// Calls the past-sensitive analysis could not answer, answered by the whole-program one.
klee::Statistic statWholeProgram("PspaWholeProgram", "PSwp");
klee::Statistic statTime("PspaTime", "PStime");
klee::Statistic statOwnQueries("PspaOwnQueries", "PSQ");

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

class PspaPlugin;
PspaPlugin *thePlugin;

class PspaPlugin : public klee::Plugin, public pspa_plugin::Host {
public:
  // Host
  const pspa::Engine &analysisEngine() const override { return **engine; }
  klee::Executor &kleeExecutor() override { return *executor; }
  bool wholeProgram() const override { return options.spa; }
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
    return analyzeCall(state, ki, f, args, firstNew, &pending, keepPost);
  }
  pspa_plugin::Answer wholeProgramAnswer(Function *f) override {
    return std::make_shared<rust::Box<pspa::CallAnswer>>(
        pspa::engine_whole_program_answer(**engine, reinterpret_cast<std::size_t>(f)));
  }
  void withState(klee::ExecutionState &state, Function *f, std::vector<klee::ref<klee::Expr>> &args,
                 const StateUse &use) override {
    // Before the view: analysing pending skips reads their snapshots.
    rust::Box<pspa::PendingPosts> pending = pendingPosts(state, nullptr);
    pspa_plugin::KleeStateView view(reading, state, f, args);
    use(**engine, view, *pending);
  }

  // klee::Plugin: the dispatcher.
  void moduleReady(klee::Executor &ex, Module &m) override;

  bool beforeCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                  std::vector<klee::ref<klee::Expr>> &arguments) override {
    if (!active)
      return false;
    pspa_plugin::CallSite call{state, ki, f, arguments};
    for (pspa_plugin::Client *c : clients)
      c->callReached(call);
    // A skipped call: no frame, so no answer for it and nothing for the other clients. A
    // held call (declared, waiting for a recovery) comes back here and counts when it runs.
    for (pspa_plugin::Client *c : clients)
      if (c->beforeCall(call))
        return true;
    bool body = f && !f->isDeclaration() && !f->isIntrinsic();
    pspa_plugin::CallAnalysis analysis;
    if (body && (options.analyzeAll || chosen.count(f->getName().str()))) {
      analysis.analysed = true;
      analysis.answer = analyzeCall(state, ki, f, arguments, analysis.firstNew);
    } else if (std::optional<std::uint64_t> budget; body && (budget = wantedByClients(f))) {
      // For a client only (resolution's snapshots). In SPA mode the whole-program answer,
      // which reads nothing; else an analysed call like any other, within the clients'
      // budget.
      analysis.analysed = true;
      if (options.spa) {
        analysis.firstNew = klee::MemoryObject(0).id;
        analysis.answer = wholeProgramAnswer(f);
      } else {
        pspa::CallReport r;
        analysis.answer = analyzeCall(state, ki, f, arguments, analysis.firstNew, nullptr, false, *budget, &r);
        analysis.work = r.work;
        analysis.overBudget = r.over_call_budget;
      }
    }
    for (pspa_plugin::Client *c : clients)
      c->callRuns(call, analysis);
    return false;
  }

  void onCast(klee::ExecutionState &state, klee::KInstruction *ki, klee::ref<klee::Expr> value) override;

  void afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo) override {
    for (pspa_plugin::Client *c : clients)
      c->afterAlloc(state, mo);
  }
  bool beforeFree(klee::ExecutionState &state, const klee::MemoryObject *mo) override {
    for (pspa_plugin::Client *c : clients)
      if (c->beforeFree(state, mo))
        return true;
    return false;
  }
  klee::Searcher *wrapSearcher(klee::Executor &, klee::Searcher *searcher) override {
    return chop ? chop->wrap(searcher) : searcher;
  }
  bool beforeInstruction(klee::ExecutionState &state, klee::KInstruction *ki) override {
    for (pspa_plugin::Client *c : clients)
      if (c->beforeInstruction(state, ki))
        return true;
    return false;
  }
  void afterReturn(klee::ExecutionState &state) override {
    for (pspa_plugin::Client *c : clients)
      c->afterReturn(state);
  }
  bool onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) override {
    // A held access runs again later: the clients after the one that held it see it then.
    for (pspa_plugin::Client *c : clients)
      if (c->onMemoryAccess(state, ki, mo, offset, bytes, isWrite))
        return true;
    return false;
  }
  void stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) override {
    for (pspa_plugin::Client *c : clients)
      c->stateBranched(parent, child);
  }
  void stateTerminated(klee::ExecutionState &state) override {
    for (pspa_plugin::Client *c : clients)
      c->stateTerminated(state);
  }
  bool resolutionFilter(klee::ExecutionState &state, klee::KInstruction *ki, klee::ref<klee::Expr> address,
                        klee::ResolutionFilter &filter) override {
    return resolve && resolve->resolutionFilter(state, ki, address, filter);
  }
  void runFinished(klee::InterpreterHandler &handler) override;

private:
  /// Whether a client wants `f` analysed (one pass over the clients, at every call): if
  /// so, the largest budget among those that do (0, the session's, if one has none).
  std::optional<std::uint64_t> wantedByClients(Function *f) const {
    std::optional<std::uint64_t> most;
    for (pspa_plugin::Client *c : clients)
      if (c->wantsAnalysis(f)) {
        std::uint64_t b = c->analysisBudget(f);
        most = (b == 0 || (most && *most == 0)) ? 0 : std::max(most.value_or(0), b);
      }
    return most;
  }
  /// The post-states an analysis at `state` joins: those of the skipped calls pending on
  /// its path (chopping), or `given`.
  rust::Box<pspa::PendingPosts> pendingPosts(const klee::ExecutionState &state,
                                             const std::vector<pspa_plugin::Answer> *given);
  /// Analyse the call of `f` starting in `state`: the answer (null if the analysis failed),
  /// and in `firstNew` the first id of the objects allocated after it. `maxWork`: a budget
  /// tighter than the session's (0: the session's); `report`, if given, gets the call's.
  pspa_plugin::Answer analyzeCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                                  std::vector<klee::ref<klee::Expr>> &arguments, std::uint64_t &firstNew,
                                  const std::vector<pspa_plugin::Answer> *pending = nullptr, bool keepPost = false,
                                  std::uint64_t maxWork = 0, pspa::CallReport *report = nullptr);

  pspa_plugin::PluginOptions options;
  klee::Executor *executor = nullptr;
  rust::Box<pspa::Engine> *engine = nullptr;
  bool active = false;
  std::set<std::string> chosen;
  std::unique_ptr<klee::TimingSolver> solver;
  /// The clients, owned here; `clients` is the order every hook reaches them in.
  std::unique_ptr<pspa_plugin::ChopClient> chop;
  std::unique_ptr<pspa_plugin::CheckClient> check;
  std::unique_ptr<pspa_plugin::ResolveClient> resolve;
  std::unique_ptr<pspa_plugin::WitClient> wit;
  std::vector<pspa_plugin::Client *> clients;
  /// The same clients in the order of their reports.
  std::vector<pspa_plugin::Client *> reporting;
  /// What reading states keeps across calls (casts' types, the globals, counts).
  pspa_plugin::ReadContext reading;
  /// Calls analysed for a client only and given up over its budget (not failures).
  std::uint64_t givenUp = 0;
  /// Each function's last answer, served while the state holds what it read.
  pspa_plugin::LastAnswers lastAnswers;
  std::unique_ptr<pspa_plugin::CallLog> log;
  std::uint64_t joinedAnalyses = 0, joinFailures = 0;
  unsigned dumped = 0;
  bool warned = false, warnedWholeProgram = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

void PspaPlugin::moduleReady(klee::Executor &ex, Module &m) {
  executor = &ex;
  reading.executor = &ex;
  reading.module = &m;
  reading.host = this;
  start = std::chrono::steady_clock::now();
  options = pspa_plugin::pluginOptions();
  reading.cache.on = options.readCache;
  reading.cache.verify = pspa_plugin::CheckClient::enabled();
  log = std::make_unique<pspa_plugin::CallLog>(options.spa);
  for (auto &f : options.analyze)
    chosen.insert(f);
  if (!options.analyzeFiles.empty()) {
    unsigned n = 0;
    for (Function &fn : m)
      if (!fn.isDeclaration() && definedIn(fn, options.analyzeFiles)) {
        chosen.insert(fn.getName().str());
        ++n;
      }
    klee::klee_message("pspa: --pspa-analyze-files selects %u functions", n);
    if (n == 0)
      klee::klee_warning("pspa: --pspa-analyze-files: no function with debug info is defined there");
  }
  active = options.analyzeAll || !chosen.empty() || pspa_plugin::ResolveClient::enabled() ||
           pspa_plugin::WitClient::enabled() || pspa_plugin::ChopClient::enabled();
  if (!active)
    return;
  for (auto &f : chosen)
    if (!m.getFunction(f))
      klee::klee_warning("pspa: --pspa-analyze: no function %s in the module", f.c_str());
  // Strings cross as lossy UTF-8: a strict conversion would abort KLEE on odd bytes.
  rust::String name = rust::String::lossy(m.getModuleIdentifier());
  rust::Vec<rust::String> allocators;
  for (auto &a : options.allocators) {
    if (!m.getFunction(a))
      klee::klee_warning("pspa: --pspa-allocator: no function %s in the module", a.c_str());
    allocators.push_back(rust::String::lossy(a));
  }
  pspa::EngineOptions engineOptions{options.spa,
                                    !options.noReuse,
                                    options.allGlobals,
                                    options.eager,
                                    options.maxWork,
                                    options.trialWork,
                                    options.keepPointsTo || pspa_plugin::ResolveClient::enabled(),
                                    std::move(allocators),
                                    options.followExits,
                                    options.fallback,
                                    // --pspa-check checks ref-sets and the writeless claim.
                                    options.writeless && !pspa_plugin::CheckClient::enabled()};
  engine = new rust::Box<pspa::Engine>(pspa::engine_new(reinterpret_cast<std::size_t>(&m), name, engineOptions));
  std::string err(pspa::engine_error(**engine));
  if (!err.empty()) {
    klee::klee_warning("pspa: cannot analyse this module, analysis off: %s", err.c_str());
    active = false;
    return;
  }
  // Made (their start-up warnings) and reporting (their done lines) in one order, the
  // order users' logs have always had; hooks reach them chopping first (clients.h).
  if (pspa_plugin::CheckClient::enabled())
    check = std::make_unique<pspa_plugin::CheckClient>(*this);
  if (pspa_plugin::ResolveClient::enabled())
    resolve = std::make_unique<pspa_plugin::ResolveClient>(*this);
  if (pspa_plugin::WitClient::enabled())
    wit = std::make_unique<pspa_plugin::WitClient>(*this, m);
  if (pspa_plugin::ChopClient::enabled())
    chop = std::make_unique<pspa_plugin::ChopClient>(*this, m);
  for (pspa_plugin::Client *c : std::initializer_list<pspa_plugin::Client *>{check.get(), resolve.get(), wit.get(), chop.get()})
    if (c)
      reporting.push_back(c);
  for (pspa_plugin::Client *c : std::initializer_list<pspa_plugin::Client *>{chop.get(), check.get(), resolve.get(), wit.get()})
    if (c)
      clients.push_back(c);
  if (!options.dumpSnapshots.empty()) {
    sys::fs::create_directories(options.dumpSnapshots);
    if (!pspa::engine_write_module(**engine, rust::String::lossy(options.dumpSnapshots + "/final.bc")))
      klee::klee_warning("pspa: cannot write %s/final.bc", options.dumpSnapshots.c_str());
  }
}

rust::Box<pspa::PendingPosts> PspaPlugin::pendingPosts(const klee::ExecutionState &state,
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

pspa_plugin::Answer PspaPlugin::analyzeCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                                            std::vector<klee::ref<klee::Expr>> &arguments, std::uint64_t &firstNew,
                                            const std::vector<pspa_plugin::Answer> *pending, bool keepPost,
                                            std::uint64_t maxWork, pspa::CallReport *report) {
  ++statCalls;
  auto t0 = std::chrono::steady_clock::now();
  // Before the view: analysing pending skips reads their snapshots.
  rust::Box<pspa::PendingPosts> posts = pendingPosts(state, pending);
  // A recent answer of the function serves if the state still holds what it read (never
  // with post-states to join or keep, nor when every call is to be dumped).
  bool lastServes = options.lastAnswers && !keepPost && options.dumpSnapshots.empty() &&
                    pspa::pending_len(*posts) == 0;
  // Objects allocated from here on have larger ids (KLEE numbers objects in order; the
  // probe takes the next number).
  firstNew = klee::MemoryObject(0).id;
  pspa_plugin::LastAnswers::ArgKey key(arguments);
  if (lastServes) {
    if (const pspa_plugin::LastAnswers::Hit *hit = lastAnswers.find(state, f, key, reading)) {
      ++statReuses;
      pspa::engine_count_unchanged(**engine);
      auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
      statTime += us;
      pspa::CallReport r = hit->report;
      r.reused = true;
      r.micros = us;
      r.work = 0;
      r.rounds = 0; // answered without reading or solving
      r.solve_micros = 0;
      if (report)
        *report = r;
      r.projected_objects = 0; // nothing of this state was met or read
      r.read_objects = 0;
      log->record(const_cast<klee::InterpreterHandler &>(executor->getHandler()), f->getName().str(),
                  ki->info ? ki->info->line : 0, r);
      return hit->answer;
    }
  }
  pspa_plugin::KleeStateView view(reading, state, f, arguments);
  // Not recorded, the call is not kept (remember() then only drops the entry it replaces).
  // A call with a budget of its own is always recorded: a later call served its answer
  // might go over that budget if solved.
  if (lastServes && lastAnswers.worthRecording(f, maxWork != 0))
    view.recordFor(pspa_plugin::LastAnswers::MaxObjects);
  std::string dump;
  if (!options.dumpSnapshots.empty())
    dump = options.dumpSnapshots + "/call-" + std::to_string(++dumped) + ".json";
  pspa_plugin::ReadStats before = reading.reads;
  pspa::CallReport r;
  pspa_plugin::Answer answer = std::make_shared<rust::Box<pspa::CallAnswer>>(pspa::engine_analyze(
      **engine, view, reinterpret_cast<std::size_t>(f), rust::String::lossy(dump), *posts,
      pspa::CallRequest{keepPost, maxWork}, r));
  if (report)
    *report = r;
  // A call given up over its own budget is not the function's answer: a later call with
  // the session's budget must not be served the conservative one. Nor is a whole-program
  // fallback: a later call may be answered past-sensitively (a function over the trial
  // budget gets the whole budget next), and one that cannot falls back again at once.
  // Nor a writeless answer: it read nothing, and costs nothing to give again.
  if (lastServes && !r.over_call_budget && !r.whole_program && !r.writeless)
    lastAnswers.remember(state, f, key, view, reading, before, pspa::answer_ok(**answer) ? answer : nullptr, r);
  statTime += std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0).count();
  if (r.over_call_budget) {
    ++givenUp;
  } else if (r.whole_program) {
    ++statWholeProgram;
    if (!warnedWholeProgram) {
      klee::klee_warning("pspa: the past-sensitive analysis of a call of %s could not answer (%s); "
                         "it gets the function's whole-program answer (further ones are only counted)",
                         f->getName().str().c_str(), std::string(r.message).c_str());
      warnedWholeProgram = true;
    }
  } else if (!r.ok) {
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
  // KLEE's own handler (getHandler gives it const; opening a file does not change it).
  log->record(const_cast<klee::InterpreterHandler &>(executor->getHandler()), f->getName().str(),
              ki->info ? ki->info->line : 0, r);
  return pspa::answer_ok(**answer) ? answer : nullptr;
}

void PspaPlugin::onCast(klee::ExecutionState &state, klee::KInstruction *ki, klee::ref<klee::Expr> value) {
  if (!active)
    return;
  auto *ce = dyn_cast<klee::ConstantExpr>(value);
  auto *pt = dyn_cast<PointerType>(ki->inst->getType());
  if (!ce || !pt || ce->getWidth() != klee::Context::get().getPointerWidth())
    return;
  klee::ObjectPair op;
  if (!state.addressSpace.resolveOne(ce, op))
    return;
  std::uint64_t offset = ce->getZExtValue() - op.first->address;
  Type *t = pt->getPointerElementType();
  if (!pspa_plugin::layoutable(t) || t->isIntegerTy(8))
    return;
  if (pspa_plugin::learnCast(reading.castTypes, op.first->id, op.first->size, {t, offset}))
    ++reading.castTypesLearned;
}

void PspaPlugin::runFinished(klee::InterpreterHandler &handler) {
  if (!active)
    return;
  pspa_plugin::AnalysisTotals t;
  t.spa = options.spa;
  t.fallback = options.fallback && !options.spa;
  t.calls = log->calls();
  t.failures = statFailures.getValue();
  t.givenUp = givenUp;
  t.joined = joinedAnalyses;
  t.joinFailures = joinFailures;
  t.unchangedCompared = lastAnswers.compared;
  t.unchangedSameBound = lastAnswers.sameBound;
  t.lastLowYield = lastAnswers.lowYieldSkips;
  // The whole-program analysis is the analysis' time too; it never runs inside an analysed
  // call, whose timing is statTime's (EngineStats::whole_program_ran).
  pspa::EngineStats es = pspa::engine_stats(**engine);
  statTime += es.whole_program_micros;
  t.seconds = statTime.getValue() / 1e6;
  t.runSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  llvm::json::Object json;
  pspa_plugin::reportAnalysis(es, t, reading.reads, reading.cache, options.stats, json);
  for (pspa_plugin::Client *c : reporting)
    c->report(handler, json);
  pspa_plugin::writeStats(handler, std::move(json));
  log->finish();
}
} // namespace

extern "C" void klee_plugin_init() {
  // dlopen of a path loaded already gives the same library, whose init would register a
  // second plugin (and its run.stats columns) over the same options.
  if (thePlugin)
    klee::klee_error("pspa: the plugin is loaded twice (--plugin and KLEE_PLUGINS name it more than once)");
  thePlugin = new PspaPlugin();
  klee::registerPlugin(thePlugin);
  for (klee::Statistic *s :
       {&statCalls, &statAnalyses, &statReuses, &statFailures, &statWholeProgram, &statTime, &statOwnQueries})
    klee::registerPluginStatistic(s);
  for (klee::Statistic *s : pspa_plugin::resolveStatistics())
    klee::registerPluginStatistic(s);
  for (klee::Statistic *s : pspa_plugin::chopStatistics())
    klee::registerPluginStatistic(s);
}

klee::Statistic &pspa_plugin::ownQueriesStat() { return statOwnQueries; }
