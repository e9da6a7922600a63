// Write Integrity Testing (paper 6.3): the colours of every object field and every write,
// computed once from the state at the WIT point (the end of initialization) by the core
// (pspa::wit). Written as wit.json / wit.csv in KLEE's output directory. While KLEE runs:
// colour transitions between consecutive heap allocations of a path (each struct field an
// object of its own; what WIT's sequential-allocator measure counts), and with
// --pspa-wit-check every write checked against its colour.

#include "wit/wit.h"

#include "klee/Core/Interpreter.h"
#include "klee/Module/InstructionInfoTable.h"
#include "klee/Module/KInstruction.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Executor.h"
#include "lib/Core/Memory.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/CommandLine.h"

#include <algorithm>

using namespace llvm;

namespace {
cl::opt<bool> PspaWit("pspa-wit",
                      cl::desc("Write Integrity Testing colours (paper 6.3): computed once, at the point "
                               "--pspa-wit-at names, from that state (--pspa-mode=spa: whole-program); "
                               "written as wit.json and wit.csv; heap colour transitions counted"),
                      cl::init(false), cl::cat(klee::MiscCat));

cl::opt<std::string> PspaWitAt(
    "pspa-wit-at",
    cl::desc("Where WIT's colours come from: F, the first call of function F (the end of the program's "
             "initialization); `input` (default), the first call after the first read of symbolic input"),
    cl::value_desc("F|input"), cl::init("input"), cl::cat(klee::MiscCat));

cl::opt<bool> PspaWitCheck(
    "pspa-wit-check",
    cl::desc("Check every write against the colours: the bytes a coloured write touches must be of "
             "its colour (inside the call of the WIT point's function; anywhere with --pspa-mode=spa). "
             "Violations are counted and the first five named"),
    cl::init(false), cl::cat(klee::MiscCat));

const unsigned MaxWarnings = 5;
} // namespace

namespace pspa_plugin {

bool WitClient::enabled() { return PspaWit || PspaWitCheck; }

void WitClient::enable() {
  PspaWit = true;
  PspaWitCheck = true;
}

WitClient::WitClient(Host &host, llvm::Module &m) : host(host), atInput(PspaWitAt == "input") {
  Function *f = atInput ? nullptr : m.getFunction(PspaWitAt);
  if (!atInput && (!f || f->isDeclaration()))
    klee::klee_warning("pspa wit: --pspa-wit-at=%s: no function with a body of that name in the module: the "
                       "colours are never computed",
                       PspaWitAt.c_str());
}

void WitClient::callReached(CallSite &c) {
  if (!c.f || c.f->isDeclaration() || c.f->isIntrinsic() || !atPoint(c.f))
    return;
  host.withState(c.state, c.f, c.args, [&](pspa::Engine &engine, const pspa::StateView &view,
                                           const pspa::PendingPosts &pending) {
    compute(engine, view, pending, c.state, c.f);
  });
}

bool WitClient::atPoint(Function *f) const {
  if (handle || failed)
    return false;
  if (atInput)
    return inputSeen;
  return f->getName() == PspaWitAt;
}

void WitClient::compute(pspa::Engine &engine, const pspa::StateView &view, const pspa::PendingPosts &pending,
                        klee::ExecutionState &state, Function *f) {
  auto &handler = const_cast<klee::InterpreterHandler &>(host.kleeExecutor().getHandler());
  std::string json = handler.getOutputFilename("wit.json"), table = handler.getOutputFilename("wit.csv");
  firstNew = klee::MemoryObject(0).id;
  handle = std::make_unique<rust::Box<pspa::WitHandle>>(
      pspa::engine_wit(engine, view, reinterpret_cast<std::size_t>(f), pending, rust::String::lossy(json),
                       rust::String::lossy(table), result));
  if (!result.ok) {
    // Conservative: no colours, so nothing is counted or checked.
    failed = true;
    handle.reset();
    klee::klee_warning("pspa wit: the colours at the call of %s could not be computed: %s",
                       f->getName().str().c_str(), std::string(result.message).c_str());
    return;
  }
  point = f->getName().str();
  if (!std::string(result.message).empty())
    klee::klee_warning("pspa wit: the past-sensitive colours at the call of %s could not be computed; %s",
                       f->getName().str().c_str(), std::string(result.message).c_str());
  klee::klee_message("pspa wit: colours computed at the call of %s: %llu (heap %llu)", f->getName().str().c_str(),
                     (unsigned long long)result.colours, (unsigned long long)result.heap_colours);
  // The heap objects the state already has, in allocation order, begin the path's
  // sequence; the other paths' sequences start at their next allocation.
  PathCount &p = paths[state];
  p.witDepth = state.stack.size() + 1;
  std::vector<const klee::MemoryObject *> heap;
  for (auto it = state.addressSpace.objects.begin(), ie = state.addressSpace.objects.end(); it != ie; ++it)
    if (!it->first->isLocal && !it->first->isGlobal)
      heap.push_back(it->first);
  std::sort(heap.begin(), heap.end(), [](auto *a, auto *b) { return a->id < b->id; });
  for (auto *mo : heap)
    count(p, mo);
  csv = handler.openOutputFile("wit-transitions.csv");
  if (csv)
    *csv << "path,heap_fields,transitions\n";
}

std::vector<std::uint32_t> WitClient::colours(const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes,
                                              bool known) const {
  rust::Vec<std::uint32_t> v;
  pspa::wit_object(host.analysisEngine(), **handle, liveObject(mo, firstNew), off, bytes, known, v);
  return std::vector<std::uint32_t>(v.begin(), v.end());
}

void WitClient::count(PathCount &p, const klee::MemoryObject *mo) const {
  for (std::uint32_t c : colours(mo, 0, mo->size, false)) {
    if (p.fields && c != p.last)
      ++p.transitions;
    p.last = c;
    ++p.fields;
  }
}

void WitClient::afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  if (!handle || mo->isLocal || mo->isGlobal)
    return;
  count(paths[state], mo);
}

bool WitClient::onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                               klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) {
  if (!handle) {
    // The automatic WIT point: the first load of bytes that are not all concrete.
    if (!isWrite && !inputSeen && atInput && !failed) {
      const klee::ObjectState *os = state.addressSpace.findObject(mo);
      auto *ce = dyn_cast<klee::ConstantExpr>(offset);
      if (os && ce && !isa<klee::ConstantExpr>(os->read(ce->getZExtValue(), bytes * 8)))
        inputSeen = true;
    }
    return false;
  }
  if (!PspaWitCheck || !isWrite || !ki)
    return false;
  PathCount *path = paths.find(state);
  // PSPA's colours cover the WIT function's call (and what it calls) only.
  if (!host.wholeProgram() && (!path || !path->witDepth))
    return false;
  // A write inside a body the analysis models (KLEE's byte-wise memcpy) is its call's.
  const Instruction *inst = ki->inst;
  std::uint32_t want = pspa::wit_write(**handle, reinterpret_cast<std::size_t>(inst));
  // (Not its writes to the body's own locals, which are no write of the program's.)
  if (!want && state.stack.size() >= 2 && state.stack.back().caller) {
    const auto &own = state.stack.back().allocas;
    if (std::find(own.begin(), own.end(), mo) != own.end())
      return false;
    want = pspa::wit_write(**handle, reinterpret_cast<std::size_t>(state.stack.back().caller->inst));
  }
  auto *ce = dyn_cast<klee::ConstantExpr>(offset);
  std::vector<std::uint32_t> have = colours(mo, ce ? ce->getZExtValue() : 0, bytes, ce != nullptr);
  if (!want || have.empty()) {
    ++uncoloured;
    return false;
  }
  ++checked;
  for (std::uint32_t c : have) {
    if (c == want)
      continue;
    ++violations;
    if (warned++ < MaxWarnings) {
      std::string where = ki->info ? ki->info->file + ":" + std::to_string(ki->info->line) : "?";
      klee::klee_warning("pspa wit check: a write of colour %u touches object %u (%s) of colour %u, at %s",
                         want, mo->id, mo->name.c_str(), c, where.c_str());
    }
    break;
  }
  return false;
}

void WitClient::afterReturn(klee::ExecutionState &state) {
  PathCount *path = paths.find(state);
  if (path && state.stack.size() < path->witDepth)
    path->witDepth = 0; // the WIT call returned
}

void WitClient::stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) {
  paths.branched(parent, child);
}

void WitClient::stateTerminated(klee::ExecutionState &state) {
  PathCount *path = paths.find(state);
  if (!path)
    return;
  transitions += path->transitions;
  if (csv)
    *csv << pathsEnded << ',' << path->fields << ',' << path->transitions << '\n';
  ++pathsEnded;
  paths.erase(state);
}

void WitClient::report(klee::InterpreterHandler &, llvm::json::Object &json) {
  if (!enabled())
    return;
  if (csv)
    csv->flush();
  if (!handle) {
    json["wit"] = llvm::json::Object{{"computed", false}, {"failed", failed}};
    llvm::errs() << "KLEE: done: wit colours: none (" << (failed ? "the computation failed" : "the WIT point was not reached")
                 << ")\n";
    return;
  }
  // Paths still running at the end count too.
  for (auto &p : paths)
    transitions += p.second.transitions;
  json["wit"] = llvm::json::Object{{"computed", true},
                                   {"colours", result.colours},
                                   {"heap_colours", result.heap_colours},
                                   {"writes", result.writes},
                                   {"unknown_writes", result.unknown_writes},
                                   {"transitions", transitions},
                                   {"writes_checked", checked},
                                   {"violations", violations},
                                   {"not_coloured", uncoloured},
                                   {"point", point},
                                   {"check", bool(PspaWitCheck)}};
  llvm::errs() << "KLEE: done: wit colours = " << result.colours << " (heap " << result.heap_colours << "), writes = "
               << result.writes << ", through unknown pointers = " << result.unknown_writes << "\n";
  llvm::errs() << "KLEE: done: wit transitions = " << transitions << "\n";
  if (PspaWitCheck)
    llvm::errs() << "KLEE: done: wit check: writes checked = " << checked << ", violations = " << violations
                 << ", not coloured = " << uncoloured << "\n";
}

} // namespace pspa_plugin
