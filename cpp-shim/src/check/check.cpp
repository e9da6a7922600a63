// --pspa-check: every analysed call checked against what it really does. Each load and
// store executed inside the call, on every path, until the call returns, must be in the
// call's ref or mod set, its object mapped to its abstract node (its unique site if it
// existed when the call was analysed, its static site if allocated since). Accesses to
// the call's own locals are not effects and are left out, and so are those made under a
// call that ends the process, which the answers do not follow (--pspa-follow-exits). The per-path stacks of checked
// calls are copied at forks.

#include "check/check.h"

#include "klee/Module/InstructionInfoTable.h"
#include "klee/Module/KInstruction.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Memory.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cassert>

using namespace llvm;

namespace {
cl::opt<bool> PspaCheck(
    "pspa-check",
    cl::desc("Check every analysed call against what it really does: each byte a load or "
             "store reads or writes, from the call until it returns, on every path, must be "
             "in the call's ref or mod set (its object mapped to its abstract node). "
             "Prints KLEE: done: pspa check: ... and warns about the first violations. Also "
             "turned on by KLEE_PLUGIN_PSPA_CHECK=1"),
    cl::init(false), cl::cat(klee::MiscCat));

// Tests only: checks every write as if the mod sets were empty, so that the test suite
// sees that --pspa-check does report writes outside them.
cl::opt<bool> PspaCheckDropMod("pspa-check-drop-mod", cl::Hidden, cl::init(false), cl::cat(klee::MiscCat));
} // namespace

namespace pspa_plugin {

bool CheckClient::enabled() { return PspaCheck; }
void CheckClient::enable() { PspaCheck = true; }

std::vector<CheckClient::CheckedCall> *CheckClient::returnedFrom(const klee::ExecutionState &state,
                                                                 std::size_t depth) {
  std::vector<CheckedCall> *found = checking.find(state);
  if (!found)
    return nullptr;
  std::vector<CheckedCall> &v = *found;
  while (!v.empty() && v.back().depth > depth)
    v.pop_back();
  // Invariant: the checked calls of a path nest, the innermost last.
  assert(std::is_sorted(v.begin(), v.end(), [](const CheckedCall &a, const CheckedCall &b) { return a.depth < b.depth; }) &&
         "checked calls nest, innermost last");
  return &v;
}

void CheckClient::callRuns(CallSite &c, const CallAnalysis &a) {
  if (!c.f)
    return;
  klee::ExecutionState &state = c.state;
  // A frame about to be pushed at depth stack.size() + 1: calls that ran there returned.
  std::vector<CheckedCall> *inside = returnedFrom(state, state.stack.size());
  if (inside && c.f->isDeclaration() && !c.f->isIntrinsic() && !inside->empty())
    ++stats.externalCalls;
  // What runs under it is not part of the enclosing calls' answers. Pushed before the
  // call's own entry: the call's own answer follows its body.
  if (inside && !inside->empty() &&
      pspa::engine_not_followed(host.analysisEngine(), reinterpret_cast<std::size_t>(c.f)))
    inside->push_back(CheckedCall{nullptr, state.stack.size() + 1, 0, c.f, true});
  if (!a.analysed)
    return;
  if (!a.answer) {
    ++stats.failedCalls;
    return;
  }
  ++stats.calls;
  // The call's frame is about to be pushed: while it runs the stack is one deeper.
  checking[state].push_back(CheckedCall{a.answer, state.stack.size() + 1, a.firstNew, c.f});
}

void CheckClient::afterReturn(klee::ExecutionState &state) { returnedFrom(state, state.stack.size()); }

bool CheckClient::onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                               klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) {
  std::vector<CheckedCall> *inside = returnedFrom(state, state.stack.size());
  if (!inside || inside->empty())
    return false;
  auto *ce = dyn_cast<klee::ConstantExpr>(offset);
  std::uint64_t off = ce ? ce->getZExtValue() : 0;
  // Every enclosing analysed call does this access (the innermost's sets are in theirs),
  // unless it runs under a call that ends the process that the call made.
  std::size_t firstOwn = 0;
  for (std::size_t i = inside->size(); i-- > 0;)
    if ((*inside)[i].ends) {
      firstOwn = i + 1;
      break;
    }
  for (std::size_t i = 0; i < firstOwn; ++i)
    stats.ending += !(*inside)[i].ends;
  for (std::size_t i = firstOwn; i < inside->size(); ++i) {
    const CheckedCall &c = (*inside)[i];
    pspa::LiveObjectFfi o = liveObject(mo, c.firstNew);
    pspa::NodeKind node = pspa::answer_node(host.analysisEngine(), **c.answer, o);
    if (node == pspa::NodeKind::Local) {
      ++stats.locals;
      continue;
    }
    ++stats.accesses;
    if (node == pspa::NodeKind::Unknown)
      ++stats.unknownSite;
    if (!ce)
      ++stats.symbolicOffset;
    bool in = isWrite ? !PspaCheckDropMod && pspa::answer_may_write(host.analysisEngine(), **c.answer, o, off, bytes, ce != nullptr)
                      : pspa::answer_may_read(host.analysisEngine(), **c.answer, o, off, bytes, ce != nullptr);
    if (in)
      continue;
    ++stats.outside;
    if (stats.warned++ < 5) {
      std::string where = ki && ki->info ? ki->info->file + ":" + std::to_string(ki->info->line) : "?";
      std::string inst;
      raw_string_ostream os(inst);
      if (ki)
        ki->inst->print(os);
      const char *kind = node == pspa::NodeKind::Unique      ? "in the analysed state"
                         : node == pspa::NodeKind::Static    ? "allocated since, static site"
                         : node == pspa::NodeKind::Unreached ? "in the analysed state, not reached"
                                                             : "of no known site";
      klee::klee_warning("pspa check: a call of %s %s object %u (%s) bytes [%llu, %llu)%s outside its %s set, "
                         "at %s:%s",
                         c.f->getName().str().c_str(), isWrite ? "writes" : "reads", mo->id, kind,
                         (unsigned long long)off, (unsigned long long)(off + bytes), ce ? "" : " (symbolic offset)",
                         isWrite ? "mod" : "ref", where.c_str(), os.str().c_str());
    }
  }
  return false;
}

void CheckClient::stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) {
  checking.branched(parent, child);
}

void CheckClient::stateTerminated(klee::ExecutionState &state) { checking.erase(state); }

void CheckClient::report(klee::InterpreterHandler &, llvm::json::Object &json) {
  json["check"] = llvm::json::Object{{"calls_checked", stats.calls},
                                     {"accesses", stats.accesses},
                                     {"outside", stats.outside},
                                     {"failed_calls", stats.failedCalls},
                                     {"locals", stats.locals},
                                     {"unknown_site", stats.unknownSite},
                                     {"symbolic_offset", stats.symbolicOffset},
                                     {"under_ending_calls", stats.ending},
                                     {"declared_calls_inside", stats.externalCalls}};
  llvm::errs() << "KLEE: done: pspa check: calls checked = " << stats.calls << ", accesses = " << stats.accesses
               << ", outside mod/ref = " << stats.outside << "\n";
  llvm::errs() << "KLEE: done: pspa check: failed calls (not checked) = " << stats.failedCalls
               << ", accesses to the calls' own locals = " << stats.locals
               << ", to objects of unknown site = " << stats.unknownSite
               << ", at symbolic offsets (whole object) = " << stats.symbolicOffset
               << ", under a call that ends the process (not the call's) = " << stats.ending
               << ", calls of declared functions inside (their own accesses unseen) = " << stats.externalCalls << "\n";
}

} // namespace pspa_plugin
