// libpspa-klee.so: past-sensitive pointer analysis inside KLEE.
//
// Loaded by the patched KLEE (--plugin=PATH or KLEE_PLUGINS). At every call of a chosen
// function it hands the live state to the Rust core (src/klee.rs) through a StateView,
// which reads the address space: objects, their allocation sites and types, and the
// pointer values in their fields (concrete values need no query; symbolic ones are
// resolved with KLEE's own solver). Nothing here may stop KLEE: a failed analysis is
// counted and reported once, and KLEE goes on.

#include "pspa/state_view.h"
#include "pspa/src/klee.rs.h"

#include "klee/Core/Plugin.h"
#include "klee/Module/KInstruction.h"
#include "klee/Module/InstructionInfoTable.h"
#include "klee/Statistics/Statistic.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "lib/Core/AddressSpace.h"
#include "lib/Core/ExecutionState.h"
#include "lib/Core/Executor.h"
#include "lib/Core/Memory.h"
#include "lib/Core/TimingSolver.h"

#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
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

cl::opt<bool> PspaAnalyzeAll(
    "pspa-analyze-all",
    cl::desc("Analyse every call of a function with a body (paper 6.1). Also turned on by "
             "the environment variable KLEE_PLUGIN_PSPA_ANALYZE_ALL=1"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<std::string> PspaDumpSnapshots(
    "pspa-dump-snapshots",
    cl::desc("Write a pspa.snapshot/1 file per analysed call into DIR, with the module "
             "KLEE executes as DIR/final.bc (replay: pspa modref --snapshot FILE)"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(klee::MiscCat));

cl::opt<bool> PspaNoReuse("pspa-no-reuse",
                          cl::desc("Analyse every call, even in a state isomorphic to an "
                                   "earlier one (no summary reuse)"),
                          cl::init(false), cl::cat(klee::MiscCat));

cl::opt<unsigned> PspaMaxResolutions(
    "pspa-max-resolutions",
    cl::desc("Objects a symbolic pointer in memory may resolve to before the analysis of "
             "the call gives up conservatively (default 64)"),
    cl::init(64), cl::cat(klee::MiscCat));

klee::Statistic statCalls("PspaCalls", "PScalls");
klee::Statistic statAnalyses("PspaAnalyses", "PSan");
klee::Statistic statReuses("PspaReuses", "PSre");
klee::Statistic statFailures("PspaFailures", "PSfail");
klee::Statistic statTime("PspaTime", "PStime");

/// Type name as the core reads it, or "" when it cannot (literal structs, functions...).
std::string typeName(Type *t) {
  if (!t)
    return "";
  if (t->isPointerTy() || t->isIntegerTy() || t->isFloatTy() || t->isDoubleTy() ||
      t->isX86_FP80Ty()) {
    if (t->isPointerTy())
      return "i8*";
    std::string s;
    raw_string_ostream os(s);
    t->print(os);
    return os.str();
  }
  if (auto *st = dyn_cast<StructType>(t))
    return st->hasName() ? st->getName().str() : "";
  if (auto *at = dyn_cast<ArrayType>(t)) {
    std::string e = typeName(at->getElementType());
    return e.empty() ? "" : "[" + std::to_string(at->getNumElements()) + " x " + e + "]";
  }
  return "";
}

struct CallLine {
  std::string function;
  unsigned line;
  pspa::CallReport report;
};

class PspaPlugin;
PspaPlugin *thePlugin;

/// A KLEE state as the core sees it. Answers are cached: the core may ask twice.
class KleeStateView : public pspa::StateView {
public:
  KleeStateView(PspaPlugin &p, klee::ExecutionState &s, std::vector<klee::ref<klee::Expr>> &args)
      : plugin(p), state(s), args(args) {}

  std::size_t num_args() const override { return args.size(); }

  bool arg(std::size_t i, rust::Vec<pspa::TargetFfi> &out) const override {
    if (args[i]->getWidth() != klee::Context::get().getPointerWidth())
      return false;
    return targets(args[i], out) && !out.empty();
  }

  rust::Vec<pspa::GlobalFfi> globals() const override;

  bool object(std::uint64_t id, pspa::ObjectFfi &out) const override;
  rust::Vec<pspa::SlotFfi> pointer_slots(std::uint64_t id) const override;

  /// Something could not be read faithfully: the analysis must not be trusted.
  mutable std::string failure;

private:
  bool targets(klee::ref<klee::Expr> e, rust::Vec<pspa::TargetFfi> &out) const;

  PspaPlugin &plugin;
  klee::ExecutionState &state;
  std::vector<klee::ref<klee::Expr>> &args;
  /// The objects met so far (globals and pointer targets): the core asks only for those,
  /// so no call walks the whole address space.
  mutable std::unordered_map<std::uint64_t, const klee::MemoryObject *> known;
};

class PspaPlugin : public klee::Plugin {
public:
  klee::Executor *executor = nullptr;
  Module *module = nullptr;
  rust::Box<pspa::Engine> *engine = nullptr;
  bool active = false;
  std::set<std::string> chosen;
  /// Types inferred from the first cast of an object's base pointer (paper, section 5).
  std::unordered_map<std::uint64_t, std::string> castTypes;
  std::vector<CallLine> lines;
  /// The objects of global variables, found once: KLEE allocates them all before main and
  /// every state shares them.
  std::vector<const klee::MemoryObject *> globalObjects;
  bool globalsFound = false;
  unsigned dumped = 0;
  bool warned = false;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  void moduleReady(klee::Executor &ex, Module &m) override {
    executor = &ex;
    module = &m;
    start = std::chrono::steady_clock::now();
    for (auto &f : PspaAnalyze)
      chosen.insert(f);
    const char *env = getenv("KLEE_PLUGIN_PSPA_ANALYZE_ALL");
    if (env && std::string(env) == "1")
      PspaAnalyzeAll = true;
    active = PspaAnalyzeAll || !chosen.empty();
    if (!active)
      return;
    for (auto &f : chosen)
      if (!m.getFunction(f))
        klee::klee_warning("pspa: --pspa-analyze: no function %s in the module", f.c_str());
    // Strings cross as lossy UTF-8: a strict conversion would abort KLEE on odd bytes.
    rust::String name = rust::String::lossy(m.getModuleIdentifier());
    engine = new rust::Box<pspa::Engine>(pspa::engine_new(reinterpret_cast<std::size_t>(&m), name,
                                                          PspaMode == Mode::SPA, !PspaNoReuse));
    std::string err(pspa::engine_error(**engine));
    if (!err.empty()) {
      klee::klee_warning("pspa: cannot analyse this module, analysis off: %s", err.c_str());
      active = false;
    }
    if (active && !PspaDumpSnapshots.empty()) {
      sys::fs::create_directories(PspaDumpSnapshots);
      if (!pspa::engine_write_module(**engine, rust::String::lossy(PspaDumpSnapshots + "/final.bc")))
        klee::klee_warning("pspa: cannot write %s/final.bc", PspaDumpSnapshots.c_str());
    }
  }

  bool beforeCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                  std::vector<klee::ref<klee::Expr>> &arguments) override {
    if (!active || !f || f->isDeclaration() || f->isIntrinsic())
      return false;
    if (!PspaAnalyzeAll && !chosen.count(f->getName().str()))
      return false;
    ++statCalls;
    auto t0 = std::chrono::steady_clock::now();
    KleeStateView view(*this, state, arguments);
    std::string dump;
    if (!PspaDumpSnapshots.empty())
      dump = PspaDumpSnapshots + "/call-" + std::to_string(++dumped) + ".json";
    pspa::CallReport r =
        pspa::engine_analyze(**engine, view, reinterpret_cast<std::size_t>(f), rust::String::lossy(dump));
    if (r.ok && !view.failure.empty()) {
      r.ok = false;
      r.message = rust::String::lossy(view.failure);
    }
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
    lines.push_back({f->getName().str(), ki->info ? ki->info->line : 0, r});
    return false;
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
    if (castTypes.count(op.first->id))
      return;
    std::string t = typeName(pt->getPointerElementType());
    if (!t.empty() && t != "i8")
      castTypes[op.first->id] = t;
  }

  void runFinished(klee::InterpreterHandler &handler) override;
};

rust::Vec<pspa::GlobalFfi> KleeStateView::globals() const {
  if (!plugin.globalsFound) {
    for (auto it = state.addressSpace.objects.begin(), ie = state.addressSpace.objects.end(); it != ie; ++it)
      if (it->first->allocSite && isa<GlobalVariable>(it->first->allocSite))
        plugin.globalObjects.push_back(it->first);
    plugin.globalsFound = true;
  }
  rust::Vec<pspa::GlobalFfi> v;
  for (const klee::MemoryObject *mo : plugin.globalObjects) {
    known[mo->id] = mo;
    v.push_back(pspa::GlobalFfi{reinterpret_cast<std::size_t>(mo->allocSite), mo->id});
  }
  return v;
}

bool KleeStateView::object(std::uint64_t id, pspa::ObjectFfi &out) const {
  auto it = known.find(id);
  if (it == known.end())
    return false;
  const klee::MemoryObject *mo = it->second;
  out.id = id;
  out.site = reinterpret_cast<std::size_t>(mo->allocSite);
  out.size = mo->size;
  std::string t;
  if (mo->allocSite) {
    if (auto *gv = dyn_cast<GlobalVariable>(mo->allocSite))
      t = typeName(gv->getValueType());
    else if (auto *ai = dyn_cast<AllocaInst>(mo->allocSite))
      t = typeName(ai->getAllocatedType());
  }
  if (t.empty()) {
    auto c = plugin.castTypes.find(id);
    if (c != plugin.castTypes.end())
      t = c->second;
  }
  out.type_name = rust::String::lossy(t);
  return true;
}

bool KleeStateView::targets(klee::ref<klee::Expr> e, rust::Vec<pspa::TargetFfi> &out) const {
  if (auto *ce = dyn_cast<klee::ConstantExpr>(e)) {
    std::uint64_t v = ce->getZExtValue();
    if (v == 0)
      return true;
    if (Function *fn = plugin.executor->getFunctionAt(v)) {
      out.push_back(pspa::TargetFfi{1, 0, 0, false, reinterpret_cast<std::size_t>(fn)});
      return true;
    }
    klee::ObjectPair op;
    if (!state.addressSpace.resolveOne(ce, op))
      return true; // not an address: an integer
    const klee::MemoryObject *mo = op.first;
    if (mo->allocSite && isa<Function>(mo->allocSite)) {
      out.push_back(pspa::TargetFfi{1, 0, 0, false, reinterpret_cast<std::size_t>(mo->allocSite)});
    } else {
      known[mo->id] = mo;
      out.push_back(pspa::TargetFfi{0, mo->id, v - mo->address, true, 0});
    }
    return true;
  }
  // A symbolic value: every object it may point into (KLEE's own resolution), at an
  // unknown offset. Too many candidates, or a timeout: give up on this call.
  klee::ResolutionList rl;
  klee::TimingSolver *solver = plugin.executor->getSolver();
  bool incomplete = state.addressSpace.resolve(state, solver, e, rl, PspaMaxResolutions);
  if (incomplete || rl.size() >= PspaMaxResolutions) {
    failure = "a symbolic pointer may point to too many objects";
    return false;
  }
  for (auto &p : rl) {
    known[p.first->id] = p.first;
    out.push_back(pspa::TargetFfi{0, p.first->id, 0, false, 0});
  }
  return true;
}

rust::Vec<pspa::SlotFfi> KleeStateView::pointer_slots(std::uint64_t id) const {
  rust::Vec<pspa::SlotFfi> v;
  auto it = known.find(id);
  if (it == known.end())
    return v;
  const klee::MemoryObject *mo = it->second;
  if (mo->allocSite && isa<Function>(mo->allocSite))
    return v; // code, not data
  const klee::ObjectState *os = state.addressSpace.findObject(mo);
  if (!os)
    return v;
  unsigned width = klee::Context::get().getPointerWidth();
  for (unsigned off = 0; off + width / 8 <= mo->size; off += width / 8) {
    klee::ref<klee::Expr> e = os->read(off, width);
    rust::Vec<pspa::TargetFfi> ts;
    if (!targets(e, ts))
      return v;
    if (!ts.empty())
      v.push_back(pspa::SlotFfi{off, std::move(ts)});
  }
  return v;
}

void PspaPlugin::runFinished(klee::InterpreterHandler &handler) {
  if (!active)
    return;
  pspa::EngineStats s = pspa::engine_stats(**engine);
  double secs = statTime.getValue() / 1e6;
  llvm::errs() << "KLEE: done: pspa calls analysed = " << lines.size() << " ("
               << (PspaMode == Mode::SPA ? "spa" : "pspa") << ")\n";
  if (PspaMode == Mode::PSPA) {
    double ratio = s.invocations ? double(s.reuse_hits) / s.invocations : 0.0;
    llvm::errs() << "KLEE: done: pspa analyses = " << s.analyses << ", reused = " << s.reuse_hits
                 << " (reuse ratio " << format("%.4f", ratio) << ")\n";
  }
  llvm::errs() << "KLEE: done: pspa failures = " << statFailures.getValue() << "\n";
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  llvm::errs() << "KLEE: done: pspa time = " << format("%.3f", secs) << " s ("
               << format("%.2f", total > 0 ? 100.0 * secs / total : 0.0) << "% of the run)\n";
  auto f = handler.openOutputFile("pspa-calls.csv");
  if (!f) {
    klee::klee_warning("pspa: cannot write pspa-calls.csv");
    return;
  }
  *f << "function,line,mode,ok,reused,mod,ref,mod_stripped,ref_stripped,projected_objects,micros\n";
  struct Avg { double m = 0, r = 0; unsigned n = 0; };
  std::map<std::string, Avg> avg;
  const char *mode = PspaMode == Mode::SPA ? "spa" : "pspa";
  for (auto &l : lines) {
    auto &r = l.report;
    *f << l.function << ',' << l.line << ',' << mode << ',' << (r.ok ? 1 : 0) << ',' << (r.reused ? 1 : 0) << ','
       << r.mod_size << ',' << r.ref_size << ',' << r.mod_stripped << ',' << r.ref_stripped << ','
       << r.projected_objects << ',' << r.micros << '\n';
    if (r.ok) {
      Avg &a = avg[l.function];
      a.m += r.mod_stripped;
      a.r += r.ref_stripped;
      a.n++;
    }
  }
  for (auto &kv : avg)
    *f << "# average," << kv.first << ',' << mode << ",calls=" << kv.second.n << ",mod_stripped="
       << format("%.2f", kv.second.m / kv.second.n) << ",ref_stripped=" << format("%.2f", kv.second.r / kv.second.n)
       << '\n';
}
} // namespace

extern "C" void klee_plugin_init() {
  thePlugin = new PspaPlugin();
  klee::registerPlugin(thePlugin);
  for (klee::Statistic *s : {&statCalls, &statAnalyses, &statReuses, &statFailures, &statTime})
    klee::registerPluginStatistic(s);
}
