// Symbolic pointer resolution pruning (paper 6.4): KLEE resolves a symbolic address by
// asking the solver, object after object, whether the address may point into it. The
// points-to set of the access's pointer operand, from a snapshot of the nearest frame whose
// call had no symbolic pointer argument, rules objects out before any query
// (Plugin::resolutionFilter, consulted inside AddressSpace::resolve and resolveOne).
//
// Accesses inside a body the analysis replaces by a model (KLEE's byte-wise memcpy,
// memset, strcpy...) take the sets of the call's pointer arguments, in the caller's frame.
//
// Each object is rejected (`No`), named by the set (`Yes`), or kept because the answer
// cannot tell (`Unknown`: an object of no node, a set naming `unknown`). Where the set names
// at most three live objects of the whole address space and nothing else is kept, the
// patch lists them without a query (the caller's forks ask at most three where KLEE's scan
// asks at least four), and resolveOne takes a single one without KLEE's example query. Otherwise the patch's scan (AddressSpace::resolve) asks about kept
// objects only, lists those past the first found without a query of their own (the fork on
// each asks), and stops where KLEE's would or sooner. Never more queries on the same state
// (--pspa-resolve-compare checks it, resolution by resolution).
//
// The first symbolic dereference under a function with lazy snapshots takes the sets of the
// nearest call out from it that has a snapshot: that analysis covered this code too.
//
// Never skipped: any object when no frame has a snapshot (yet), when its analysis
// failed, when the access's pointer has no set (not a load or store, or not in the
// analysed code), or when the answer is "may touch anything"; an object the answer cannot
// name (KLEE's own, made since the snapshot or under a call of a function returning
// memory KLEE made; one from an allocator wrapper made since the snapshot).
//
// Lazy snapshots stop for a function whose snapshots resolutions rarely use (RetireAfter),
// for good: a function called often before the run turns symbolic keeps none after. They
// stop too where they cost more than they save (the cost guard, in solver work, which is
// deterministic): a snapshot is given up once its solve passes --pspa-resolve-max-work
// (make's eval, the parser of the whole makefile: 0.6 s for no pruned resolution), and a
// function stops once its snapshots' work passes that budget plus what their resolutions
// saved (WorkPerSavedQuery per query).

#include "resolve/resolve.h"

#include "klee/Expr/ExprUtil.h"
#include "klee/Module/InstructionInfoTable.h"
#include "klee/Module/KInstruction.h"
#include "klee/Module/KModule.h"
#include "klee/Solver/SolverStats.h"
#include "klee/Statistics/Statistic.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "lib/Core/AddressSpace.h"
#include "lib/Core/ExecutionState.h"
#include "lib/Core/Executor.h"
#include "lib/Core/Memory.h"
#include "lib/Core/TimingSolver.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>

using namespace llvm;

namespace {
enum class Snapshots { Lazy, All };

cl::opt<bool> PspaResolve(
    "pspa-resolve",
    cl::desc("Prune the resolution of symbolic addresses of loads and stores: objects the "
             "pointer cannot point to (past-sensitive points-to sets; --pspa-mode=spa: "
             "whole-program sets) are skipped without a solver query (paper 6.4). Also turned "
             "on by KLEE_PLUGIN_PSPA_RESOLVE=1"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<int> PspaResolveDistance(
    "pspa-resolve-distance",
    cl::desc("Take the points-to sets from the snapshot N frames out from the access (0: "
             "its own function's call). Default: automatic, the nearest frame whose call "
             "had no symbolic pointer argument"),
    cl::init(-1), cl::cat(klee::MiscCat));

cl::opt<Snapshots> PspaResolveSnapshots(
    "pspa-resolve-snapshots",
    cl::desc("When calls take a snapshot for --pspa-resolve (default: lazy)"),
    cl::values(clEnumValN(Snapshots::Lazy, "lazy",
                          "the calls of functions in which a symbolic dereference happened "
                          "(the first one takes the nearest outer call's snapshot, or "
                          "resolves fully)"),
               clEnumValN(Snapshots::All, "all", "every call of every function")),
    cl::init(Snapshots::Lazy), cl::cat(klee::MiscCat));

cl::opt<unsigned long long> PspaResolveMaxWork(
    "pspa-resolve-max-work",
    cl::desc("Give up a call's analysis taken for --pspa-resolve only (a lazy snapshot) once "
             "its solves have offered this many points-to elements (the default 20000000: 0.1 s "
             "on make's eval), and take no more snapshots of its function: a snapshot is "
             "worth the queries its resolutions save, a few ms each. A function whose "
             "snapshots' work passes this plus what their resolutions saved stops too. 0: "
             "no such bound (--pspa-max-work still applies)"),
    cl::init(20000000ULL), cl::cat(klee::MiscCat));

cl::opt<bool> PspaResolveValidate(
    "pspa-resolve-validate",
    cl::desc("Ask the solver about every object the pruning skips: one it finds feasible "
             "is a mismatch (counted, and the first is warned about). Its queries count in "
             "ResolveQueries: measure without it"),
    cl::init(false), cl::cat(klee::MiscCat));

cl::opt<bool> PspaResolveCompare(
    "pspa-resolve-compare",
    cl::desc("Before each pruned resolution, also run KLEE's scan over the address space "
             "on the same state with and without the pruning (the plugin's own solver) and "
             "count the queries of each, an object listed counting one (the fork on it): a "
             "pruned scan must never ask more (counted: resolutions where pruning asked "
             "more). Layout-independent, unlike two runs' ResolveQueries (with the host's "
             "allocator, objects land elsewhere run to run). Its queries count in "
             "ResolveQueries: measure without it"),
    cl::init(false), cl::cat(klee::MiscCat));

klee::Statistic statResolveAccesses("PspaResolveAccesses", "PSRacc");
klee::Statistic statResolveSkipped("PspaResolveSkipped", "PSRskip");
klee::Statistic statResolveSnapshots("PspaResolveSnapshots", "PSRsnap");
klee::Statistic statResolveMismatches("PspaResolveMismatches", "PSRmis");
klee::Statistic statResolveFromSet("PspaResolveFromSet", "PSRset");

/// The pointer operand of a load or store, or the pointer argument KLEE resolves
/// exactly for a call of free or realloc (Executor::resolveExact); null for anything else.
const Value *pointerOperand(const Instruction *i) {
  if (auto *l = dyn_cast<LoadInst>(i))
    return l->getPointerOperand();
  if (auto *s = dyn_cast<StoreInst>(i))
    return s->getPointerOperand();
  if (auto *cb = dyn_cast<CallBase>(i))
    if (const Function *f = cb->getCalledFunction())
      if ((f->getName() == "free" || f->getName() == "realloc") && cb->arg_size() > 0)
        return cb->getArgOperand(0);
  return nullptr;
}
} // namespace

namespace pspa_plugin {

std::vector<klee::Statistic *> resolveStatistics() {
  return {&statResolveAccesses, &statResolveSkipped, &statResolveSnapshots, &statResolveMismatches,
          &statResolveFromSet};
}

bool ResolveClient::enabled() { return PspaResolve; }

void ResolveClient::enable() { PspaResolve = true; }

bool ResolveClient::wantsAnalysis(Function *f) const {
  if (!PspaResolve)
    return false;
  // Whole-program answers cost nothing per call: every frame has one (SPA is not lazy).
  if (PspaResolveSnapshots == Snapshots::All || host.wholeProgram())
    return true;
  auto it = marks.find(f);
  return it != marks.end() && it->second.marked && !it->second.retired;
}

std::uint64_t ResolveClient::analysisBudget(Function *) const { return PspaResolveMaxWork; }

void ResolveClient::charge(Mark &m) {
  // Lazy snapshots only: with every call's, the user asked for them all.
  if (PspaResolveSnapshots != Snapshots::Lazy || !m.marked || m.retired || PspaResolveMaxWork == 0)
    return;
  if (m.work > PspaResolveMaxWork + WorkPerSavedQuery * m.saved) {
    m.retired = true;
    ++retiredCost;
  }
}

std::vector<ResolveClient::Frame> &ResolveClient::frames(klee::ExecutionState &state) {
  std::vector<Frame> &v = perState[state];
  // Frames pushed without a call the plugin saw (main's): no snapshot, no symbolic
  // pointer argument.
  while (v.size() < state.stack.size()) {
    Frame fr;
    fr.f = state.stack[v.size()].kf->function;
    v.push_back(fr);
  }
  // Frames that returned.
  v.resize(state.stack.size());
  return v;
}

void ResolveClient::callRuns(CallSite &c, const CallAnalysis &a) {
  klee::ExecutionState &state = c.state;
  Function *f = c.f;
  std::vector<klee::ref<klee::Expr>> &args = c.args;
  if (!PspaResolve || !f || f->isDeclaration() || f->isIntrinsic())
    return; // no frame is pushed
  std::vector<Frame> &v = frames(state);
  Frame fr;
  fr.f = f;
  fr.ends = pspa::engine_not_followed(host.analysisEngine(), reinterpret_cast<std::size_t>(f));
  for (unsigned i = 0; i < args.size() && i < f->arg_size(); ++i)
    if (f->getArg(i)->getType()->isPointerTy() && !isa<klee::ConstantExpr>(args[i]))
      fr.symbolicPointerArg = true;
  if (a.overBudget) {
    // Given up over --pspa-resolve-max-work: its function's snapshots cost more than
    // they can save. No snapshot here; resolutions under it take an outer call's.
    ++givenUp;
    auto it = marks.find(f);
    if (it != marks.end() && PspaResolveSnapshots == Snapshots::Lazy && !it->second.retired) {
      it->second.retired = true;
      ++retiredCost;
    }
  }
  if (a.answer) {
    fr.answer = a.answer;
    fr.firstNew = a.firstNew;
    fr.symbolics = state.symbolics.size();
    ++statResolveSnapshots;
    // Lazy snapshots: a function whose calls' snapshots resolutions rarely use (most of
    // its calls make no symbolic dereference: make's variable_expand_string, 1 of 57)
    // stops taking them once it has taken RetireAfter.
    auto it = marks.find(f);
    if (it != marks.end() && it->second.marked && !it->second.retired &&
        ++it->second.taken >= RetireAfter && it->second.used * RetireAfter < it->second.taken) {
      it->second.retired = true;
      ++retired;
    }
    // And once their solves cost more work than their resolutions saved queries.
    if (it != marks.end() && a.work) {
      it->second.work += a.work;
      charge(it->second);
    }
  }
  v.push_back(std::move(fr));
}

const std::optional<std::vector<std::size_t>> &ResolveClient::bodyAccessArgs(const Function *f, bool store) {
  auto it = bodyArgs.find({f, store});
  if (it != bodyArgs.end())
    return it->second;
  rust::Vec<std::size_t> out;
  std::optional<std::vector<std::size_t>> args;
  if (pspa::engine_body_access_args(host.analysisEngine(), reinterpret_cast<std::size_t>(f), store, out))
    args.emplace(out.begin(), out.end());
  return bodyArgs.emplace(std::make_pair(f, store), std::move(args)).first->second;
}

bool ResolveClient::bodyModelled(const Function *f) {
  auto it = modelledBodies.find(f);
  if (it != modelledBodies.end())
    return it->second;
  bool m = pspa::engine_body_modelled(host.analysisEngine(), reinterpret_cast<std::size_t>(f));
  modelledBodies.emplace(f, m);
  return m;
}

bool ResolveClient::resolutionFilter(klee::ExecutionState &state, klee::KInstruction *ki,
                                     klee::ref<klee::Expr> address, klee::ResolutionFilter &filter) {
  if (!PspaResolve || !ki)
    return false;
  const Value *ptr = pointerOperand(ki->inst);
  if (!ptr)
    return false; // not a load, store, free or realloc: resolved as KLEE does
  ++statResolveAccesses;
  std::vector<Frame> &v = frames(state);
  if (v.empty())
    return false;
  // The pointers whose sets answer, and the frame the access counts in. In a body the
  // analysis replaces by a model (KLEE's byte-wise memcpy, memset, strcpy...), the
  // pointer derives from the call's arguments: their sets, in the caller's frame.
  std::vector<std::size_t> values;
  std::size_t top = v.size() - 1;
  if (bodyModelled(ki->inst->getFunction())) {
    const klee::KInstruction *call = state.stack.back().caller;
    const auto *cb = call ? dyn_cast<CallBase>(call->inst) : nullptr;
    if (!cb || top == 0)
      return false;
    // The arguments the model says the body stores or loads through (memcpy stores
    // through its destination only), or every pointer argument.
    const std::optional<std::vector<std::size_t>> &roles =
        bodyAccessArgs(ki->inst->getFunction(), isa<StoreInst>(ki->inst));
    for (unsigned i = 0; i < cb->arg_size(); ++i)
      if (cb->getArgOperand(i)->getType()->isPointerTy() &&
          (!roles || std::find(roles->begin(), roles->end(), i) != roles->end()))
        values.push_back(reinterpret_cast<std::size_t>(cb->getArgOperand(i)));
    --top;
    ++throughArguments;
  } else {
    values.push_back(reinterpret_cast<std::size_t>(ptr));
  }
  if (values.empty())
    return false; // no pointer to take a set from (an allocator wrapper's body)
  // The frame whose snapshot answers: N out, or the nearest whose call had no symbolic
  // pointer argument (the paper's automatic analysis distance).
  std::size_t j = top;
  if (PspaResolveDistance >= 0)
    j = top >= std::size_t(PspaResolveDistance) ? top - PspaResolveDistance : 0;
  else
    while (j > 0 && v[j].symbolicPointerArg)
      --j;
  bool outer = false;
  if (!v[j].answer) {
    // The first symbolic dereference under this function: its later calls take a
    // snapshot. This one takes the sets of the nearest call out from it that has one
    // (whose analysis covered this code too), or is resolved fully.
    if (v[j].f)
      marks[v[j].f].marked = true; // unless retired: then for good
    // Not with a distance the user chose; and, as the automatic distance, past the
    // calls that had a symbolic pointer argument.
    if (PspaResolveDistance < 0)
      while (j > 0 && (!v[j].answer || v[j].symbolicPointerArg))
        --j;
    if (!v[j].answer) {
      ++noSnapshot;
      return false;
    }
    outer = true;
  }
  Frame &fr = v[j];
  // Under a call that ends the process, made inside the answering call: not followed by
  // its answer (a function run there may have its sets from other calls only).
  for (std::size_t k = j + 1; k <= top; ++k)
    if (v[k].ends) {
      ++underEndingCalls;
      return false;
    }
  // An address built from data made symbolic since the snapshot (klee_make_symbolic on
  // a pointer inside the call) may point anywhere: the analysis saw no pointer stored
  // there. Resolved as KLEE does.
  if (fr.symbolics < state.symbolics.size()) {
    std::vector<const klee::Array *> arrays;
    klee::findSymbolicObjects(address, arrays);
    for (std::size_t i = fr.symbolics; i < state.symbolics.size(); ++i)
      if (std::find(arrays.begin(), arrays.end(), state.symbolics[i].second) != arrays.end()) {
        ++freshSymbolic;
        return false;
      }
  }
  // The answering function's mark, credited with the queries its sets save (node-based
  // map: the pointer stays valid).
  auto markIt = marks.find(fr.f);
  Mark *mark = markIt != marks.end() ? &markIt->second : nullptr;
  if (!fr.used) {
    // (A state forked since copied the flag: each branch may count it once.)
    fr.used = true;
    if (mark)
      ++mark->used;
  }
  fromOuter += outer;
  Answer answer = fr.answer;
  std::uint64_t firstNew = fr.firstNew;
  klee::TimingSolver *solver = &host.ownSolver();
  ++pruned;
  filter.keeps = [this, answer, firstNew, values = std::move(values)](const klee::MemoryObject *mo) {
    return keep(answer, firstNew, values, mo);
  };
  if (PspaResolveCompare) {
    // The same sets, with no counting or validation.
    klee::ResolutionFilter keeps;
    keeps.keeps = filter.keeps;
    // Bounded: KLEE cannot stop a run while a hook runs (an unpruned scan over a host
    // heap of thousands of objects once held make's run for minutes).
    bool complete = true;
    auto cost = [&](const klee::ResolutionFilter *f) {
      OwnQueries counted;
      std::uint64_t before = klee::stats::queries.getValue();
      klee::ResolutionList rl;
      complete &= !state.addressSpace.resolve(state, solver, address, rl, 0, klee::time::Span("1s"), f);
      // Each listed object costs its fork's query in the caller.
      return klee::stats::queries.getValue() - before + rl.size();
    };
    std::uint64_t unprunedCost = cost(nullptr), prunedCost = cost(&keeps);
    if (complete) {
      comparedQueries.first += prunedCost;
      comparedQueries.second += unprunedCost;
      ++compared;
      prunedAskedMore += prunedCost > unprunedCost;
    } else {
      ++compareIncomplete;
    }
  }
  filter.skipped = [this, &state, address, ki, solver, mark](const klee::MemoryObject *mo) {
    ++statResolveSkipped;
    if (mark)
      ++mark->saved;
    if (PspaResolveValidate)
      validate(state, solver, address, ki, mo);
  };
  // resolveOne and resolve may both list the kept objects of one access: counted once.
  auto listed = std::make_shared<bool>(false);
  filter.enumerated = [this, &state, address, ki, solver, listed,
                       mark](const std::vector<const klee::MemoryObject *> &kept) {
    if (!*listed) {
      *listed = true;
      ++statResolveFromSet;
      // Listing saves at least one query: KLEE's scan would ask about one more object.
      if (mark)
        ++mark->saved;
    }
    if (!PspaResolveValidate)
      return;
    // Nothing else can be feasible if the address must lie in a kept object (one query);
    // otherwise every other object is asked about.
    klee::ref<klee::Expr> outside = klee::ConstantExpr::create(1, klee::Expr::Bool);
    for (const klee::MemoryObject *mo : kept)
      outside = klee::AndExpr::create(outside, klee::Expr::createIsZero(mo->getBoundsCheckPointer(address)));
    bool may = true;
    ++validationQueries;
    {
      OwnQueries counted;
      solver->mayBeTrue(state.constraints, outside, may, state.queryMetaData);
    }
    if (!may)
      return;
    for (const auto &entry : state.addressSpace.objects)
      if (std::find(kept.begin(), kept.end(), entry.first) == kept.end())
        validate(state, solver, address, ki, entry.first);
  };
  return true;
}

klee::ResolutionFilter::Keep ResolveClient::keep(const Answer &answer, std::uint64_t firstNew,
                                                 const std::vector<std::size_t> &values,
                                                 const klee::MemoryObject *mo) {
  // Kept unless every pointer's set rules the object out; named if one names it.
  using Keep = klee::ResolutionFilter::Keep;
  pspa::LiveObjectFfi o = liveObject(mo, firstNew);
  Keep k = Keep::No;
  for (std::size_t value : values)
    switch (pspa::answer_may_point_to(host.analysisEngine(), **answer, value, o)) {
    case 0:
      break;
    case 1:
      return Keep::Yes;
    default: // 2: no set; 3: the answer cannot tell
      k = Keep::Unknown;
    }
  return k;
}

void ResolveClient::validate(klee::ExecutionState &state, klee::TimingSolver *solver,
                             klee::ref<klee::Expr> address, klee::KInstruction *ki,
                             const klee::MemoryObject *mo) {
  bool feasible = false;
  ++validationQueries;
  // Asked inside KLEE's resolution: ResolveQueries holds it too (validation runs are
  // checks, not counts).
  OwnQueries counted;
  if (!solver->mayBeTrue(state.constraints, mo->getBoundsCheckPointer(address), feasible,
                         state.queryMetaData) ||
      !feasible)
    return;
  ++statResolveMismatches;
  if (!warnedMismatch) {
    warnedMismatch = true;
    std::string inst;
    raw_string_ostream os(inst);
    ki->inst->print(os);
    klee::klee_warning("pspa resolve: skipped object %u (%s), which the address may point into, "
                       "at %s:%u:%s (further mismatches are only counted)",
                       mo->id, mo->name.c_str(), ki->info->file.c_str(), ki->info->line,
                       os.str().c_str());
  }
}

void ResolveClient::stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) {
  perState.branched(parent, child);
}

void ResolveClient::stateTerminated(klee::ExecutionState &state) { perState.erase(state); }

void ResolveClient::report(klee::InterpreterHandler &, llvm::json::Object &json) {
  if (!PspaResolve)
    return;
  json["resolve"] = llvm::json::Object{{"symbolic_accesses", statResolveAccesses.getValue()},
                                       {"candidates_skipped", statResolveSkipped.getValue()},
                                       {"snapshots", statResolveSnapshots.getValue()},
                                       {"mismatches", statResolveMismatches.getValue()},
                                       {"from_set", statResolveFromSet.getValue()},
                                       {"pruned_accesses", pruned},
                                       {"through_arguments", throughArguments},
                                       {"from_outer", fromOuter},
                                       {"no_snapshot", noSnapshot},
                                       {"under_ending_calls", underEndingCalls},
                                       {"snapshots_retired", retired},
                                       {"snapshots_retired_cost", retiredCost},
                                       {"snapshots_given_up", givenUp},
                                       {"fresh_symbolic", freshSymbolic},
                                       {"compared", compared},
                                       {"compared_queries_pruned", comparedQueries.first},
                                       {"compared_queries_unpruned", comparedQueries.second},
                                       {"pruned_asked_more", prunedAskedMore},
                                       {"compare_incomplete", compareIncomplete},
                                       {"validation_queries", validationQueries}};
  // The run's statistics are the counts (one place, also in run.stats).
  llvm::errs() << "KLEE: done: pspa resolve: symbolic accesses = " << statResolveAccesses.getValue()
               << ", candidates skipped = " << statResolveSkipped.getValue()
               << ", snapshots = " << statResolveSnapshots.getValue()
               << ", mismatches = " << statResolveMismatches.getValue() << "\n";
  llvm::errs() << "KLEE: done: pspa resolve: pruned accesses = " << pruned
               << " (through a modelled call's arguments = " << throughArguments
               << ", from an outer call's snapshot = " << fromOuter
               << "), resolved fully (no snapshot yet) = " << noSnapshot
               << ", under a call that ends the process = " << underEndingCalls
               << ", through data made symbolic since the snapshot = " << freshSymbolic
               << ", functions whose snapshots stopped (rarely used) = " << retired
               << ", (costlier than they save) = " << retiredCost
               << ", snapshots given up over --pspa-resolve-max-work = " << givenUp
               << ", listed from the set (at most " << klee::AddressSpace::FewKept
               << " objects, no scan) = " << statResolveFromSet.getValue();
  if (PspaResolveValidate)
    llvm::errs() << ", validation queries = " << validationQueries;
  llvm::errs() << "\n";
  if (PspaResolveCompare)
    llvm::errs() << "KLEE: done: pspa resolve compare: resolutions = " << compared
                 << ", queries on the same states pruned = " << comparedQueries.first
                 << ", unpruned = " << comparedQueries.second
                 << ", resolutions where pruning asked more = " << prunedAskedMore
                 << " (not compared: a scan over 1 s = " << compareIncomplete << ")\n";
}

} // namespace pspa_plugin
