// Chopped symbolic execution (paper 6.2; Chopper, ICSE'18): the calls the user names are not
// run. The path keeps a snapshot of the state at the call and goes on; when it later loads
// bytes the call may have written (the call's mod set: whole-program, or past-sensitive from
// the snapshot), it waits while a recovery state runs the call from the snapshot, under the
// path's constraints, and the bytes the call wrote are then copied into it.
//
// Byte order of effects. A pending skip remembers, per object, the bytes written after it
// (by the path, or by the recovery of a later skip); the recovery never overwrites those.
// A recovery's writes count as "after" every older pending skip of the path, never of a
// younger one: program order is kept whatever order the recoveries run in.
//
// A skipped call whose result is used leaves the result register unset: the path's first
// instruction that uses it waits for the call's recovery, which binds it. A write at a
// symbolic offset into an object a pending call may write recovers that call first.

#include "clients.h"

#include "klee/Module/InstructionInfoTable.h"
#include "klee/Module/Cell.h"
#include "klee/Module/KInstruction.h"
#include "klee/Statistics/Statistic.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Executor.h"
#include "lib/Core/Memory.h"
#include "lib/Core/Searcher.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <sstream>
#include <string>

using namespace llvm;

namespace {
/// One `--skip-functions` item: `F` or `F:L1/L2/...`.
struct SkipSpec {
  std::string name;
  std::set<unsigned> lines; // empty: every call
};

/// Parses an item when the options are parsed, so that a bad one stops KLEE at start-up
/// with LLVM's "for the --skip-functions option: ..." (exit code 1), before any output.
struct SkipSpecParser : public cl::parser<SkipSpec> {
  explicit SkipSpecParser(cl::Option &o) : cl::parser<SkipSpec>(o) {}
  bool parse(cl::Option &o, StringRef, StringRef arg, SkipSpec &out) {
    auto [name, lines] = arg.split(':');
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
    cl::value_desc("F[:LINE[/LINE...]],..."), cl::cat(klee::MiscCat));

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

klee::Statistic statSnapshots("ChopSnapshots", "ChSnap");
klee::Statistic statRecoveries("ChopRecoveries", "ChRec");
} // namespace

namespace pspa_plugin {

std::vector<klee::Statistic *> chopStatistics() { return {&statSnapshots, &statRecoveries}; }

namespace {
std::string where(const klee::KInstruction *ki) {
  if (!ki || !ki->info || ki->info->file.empty())
    return "?";
  std::string f = ki->info->file;
  auto slash = f.rfind('/');
  return (slash == std::string::npos ? f : f.substr(slash + 1)) + ":" + std::to_string(ki->info->line);
}

void mark(std::vector<bool> &bytes, std::size_t size, std::uint64_t off, std::uint64_t n) {
  if (bytes.size() < size)
    bytes.resize(size, false);
  for (std::uint64_t i = off; i < off + n && i < size; ++i)
    bytes[i] = true;
}

/// Bytes [off, off + n) of an object of `size` bytes hold the write of call `seq`.
void markBy(std::vector<unsigned> &bytes, std::size_t size, std::uint64_t off, std::uint64_t n, unsigned seq) {
  if (bytes.size() < size)
    bytes.resize(size, 0);
  for (std::uint64_t i = off; i < off + n && i < size; ++i)
    bytes[i] = seq;
}

/// A path stops waiting on a skipped call's result: KLEE asks beforeInstruction while
/// pluginWatch > 0, and each held result counts one.
void unwatch(klee::ExecutionState &s) {
  assert(s.pluginWatch > 0 && "pluginWatch balances: one per skipped call whose result is pending");
  --s.pluginWatch;
}

bool allMarked(const std::vector<bool> *bytes, std::uint64_t off, std::uint64_t n) {
  if (!bytes)
    return false;
  for (std::uint64_t i = off; i < off + n; ++i)
    if (i >= bytes->size() || !(*bytes)[i])
      return false;
  return true;
}
} // namespace

/// What a recovered call did on one path: the bytes its recovery wrote (each with the call
/// whose write it holds: the call, or an older one recovered inside it), the objects it
/// allocated and those it freed.
struct ChopClient::Effect {
  unsigned seq = 0;          // the recovered call
  std::set<unsigned> covers; // it and the calls recovered inside it
  struct Byte {
    unsigned at;
    klee::ref<klee::Expr> value;
    unsigned by;
  };
  std::vector<std::pair<klee::ref<const klee::MemoryObject>, std::vector<Byte>>> wrote;
  std::vector<std::pair<klee::ref<const klee::MemoryObject>, klee::ref<klee::ObjectState>>> allocated;
  std::vector<klee::ref<const klee::MemoryObject>> freed;
};

/// Pauses states (a path waiting for a recovery) and, if asked, runs recovery states first.
class ChopSearcher : public klee::Searcher {
public:
  ChopSearcher(klee::Searcher *base, ChopClient &client) : base(base), client(client) {}
  ~ChopSearcher() override { delete base; }

  klee::ExecutionState &selectState() override {
    if (PspaChopSearcher == ChopSearch::On && !recoveries.empty())
      return *recoveries.back();
    return base->selectState();
  }

  void update(klee::ExecutionState *current, const std::vector<klee::ExecutionState *> &added,
              const std::vector<klee::ExecutionState *> &removed) override {
    // The base searcher knows the states that are not paused, and only those.
    std::vector<klee::ExecutionState *> in, gone;
    for (auto *s : added) {
      if (paused.count(s))
        continue; // paused before the base saw it: resume adds it
      if (client.isRecovery(s))
        recoveries.push_back(s);
      if (inBase.insert(s).second)
        in.push_back(s);
    }
    for (auto *s : removed) {
      dropRecovery(s);
      paused.erase(s);
      if (inBase.erase(s))
        gone.push_back(s);
    }
    base->update(current && inBase.count(current) ? current : nullptr, in, gone);
  }

  bool empty() override { return base->empty(); }
  void printName(llvm::raw_ostream &os) override {
    os << "ChopSearcher (recovery states " << (PspaChopSearcher == ChopSearch::On ? "first" : "as any") << ") over ";
    base->printName(os);
  }

  /// `s` waits (it may be a fork the base has not been given yet).
  void pause(klee::ExecutionState &s) {
    if (!paused.insert(&s).second)
      return;
    dropRecovery(&s);
    if (inBase.erase(&s))
      base->update(nullptr, {}, {&s});
  }
  void resume(klee::ExecutionState &s) {
    if (paused.erase(&s) == 0)
      return;
    if (client.isRecovery(&s))
      recoveries.push_back(&s);
    if (inBase.insert(&s).second)
      base->update(nullptr, {&s}, {});
  }

private:
  void dropRecovery(klee::ExecutionState *s) {
    auto it = std::find(recoveries.begin(), recoveries.end(), s);
    if (it != recoveries.end())
      recoveries.erase(it);
  }
  klee::Searcher *base;
  ChopClient &client;
  std::set<klee::ExecutionState *> paused, inBase;
  std::vector<klee::ExecutionState *> recoveries;
};

bool ChopClient::enabled() { return !SkipFunctions.empty(); }

ChopClient::Snapshot::~Snapshot() { delete state; }

namespace {
/// KLEE's handlers (and the C library's functions) that end the path where they are
/// called: an error (abort, a failed assertion, KLEE's checks) or an exit.
const std::set<StringRef> &endingHandlers() {
  static const std::set<StringRef> names = {
      "exit",        "_exit",          "_Exit",         "quick_exit",   "abort",        "__assert_fail",
      "__assert_rtn", "__assert",      "_assert",       "klee_silent_exit", "klee_abort", "klee_report_error",
      "longjmp",     "_longjmp",       "siglongjmp",    "__longjmp_chk", "pthread_exit", "__cxa_throw",
      "__cxa_rethrow", "_Unwind_Resume", "_Unwind_RaiseException", "__stack_chk_fail"};
  return names;
}

/// A function that ends the path where it is called.
bool endsPath(const Function &f) { return f.doesNotReturn() || endingHandlers().count(f.getName()); }
} // namespace

ChopClient::ChopClient(Host &host, llvm::Module &m) : host(host) {
  // What may end a path: the handlers, and the functions holding an `unreachable` (what
  // follows a call that does not return, or __builtin_unreachable): a skipped call that
  // may run one of them is recovered before the path ends (declaredCall).
  for (Function &g : m) {
    bool ends = endsPath(g);
    for (BasicBlock &bb : g)
      for (Instruction &inst : bb)
        ends |= isa<UnreachableInst>(inst);
    if (ends)
      enders.push_back(reinterpret_cast<std::size_t>(&g));
  }
  for (const SkipSpec &spec : SkipFunctions) {
    Function *f = m.getFunction(spec.name);
    if (!f || f->isDeclaration()) {
      klee::klee_warning("pspa chop: --skip-functions: no function %s with a body in the module", spec.name.c_str());
      continue;
    }
    if (f->getName() == "main") {
      klee::klee_warning("pspa chop: --skip-functions: main is the program: it is not skipped");
      continue;
    }
    std::string chain;
    if (f->doesNotReturn() || mayConstrain(m, f, chain)) {
      // After a call that does not return, the next instruction is `unreachable`: the
      // path cannot go on. klee_assume narrows the input: a path run on past it would
      // report what the narrowed input cannot do, and a recovery under a contradicting
      // path would fail the assumption (a KLEE error of its own).
      ++refusedSkips;
      klee::klee_warning("pspa chop: --skip-functions: %s is not skipped: %s", spec.name.c_str(),
                         f->doesNotReturn() ? "it does not return"
                                            : ("it may constrain the path's input (" + chain + ")").c_str());
      continue;
    }
    std::set<unsigned> &lines = skip[f];
    lines.insert(spec.lines.begin(), spec.lines.end());
    // A line with no call of f selects nothing: say so (the debug info names call lines).
    for (unsigned l : spec.lines) {
      bool found = false;
      for (const Use &u : f->uses())
        if (auto *cb = dyn_cast<CallBase>(u.getUser()))
          if (cb->getCalledOperand() == f && cb->getDebugLoc() && cb->getDebugLoc().getLine() == l)
            found = true;
      if (!found)
        klee::klee_warning("pspa chop: --skip-functions: no call of %s at line %u", spec.name.c_str(), l);
    }
  }
}

bool ChopClient::mayConstrain(llvm::Module &m, Function *f, std::string &chain) {
  // Breadth-first over the call graph: the direct calls in the bodies, and the callees the
  // whole-program analysis resolves for indirect calls; the first klee_assume reached
  // gives the chain.
  std::map<Function *, Function *> parent{{f, nullptr}};
  std::vector<Function *> queue{f};
  std::unordered_map<std::size_t, Function *> byAddress;
  for (Function &g : m)
    byAddress[reinterpret_cast<std::size_t>(&g)] = &g;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    Function *g = queue[i];
    if (g->getName() == "klee_assume") {
      std::vector<std::string> names;
      for (Function *h = g; h; h = parent[h])
        names.push_back(h->getName().str());
      std::reverse(names.begin(), names.end());
      chain.clear();
      for (std::size_t k = 0; k < names.size(); ++k)
        chain += (k ? " -> " : "") + names[k];
      return true;
    }
    if (g->isDeclaration())
      continue;
    std::vector<Function *> next;
    for (BasicBlock &bb : *g)
      for (Instruction &inst : bb)
        if (auto *cb = dyn_cast<CallBase>(&inst))
          if (auto *callee = dyn_cast<Function>(cb->getCalledOperand()->stripPointerCasts()))
            next.push_back(callee);
    rust::Vec<std::size_t> resolved;
    pspa::engine_callees(host.analysisEngine(), reinterpret_cast<std::size_t>(g), resolved);
    for (std::size_t a : resolved)
      if (auto it = byAddress.find(a); it != byAddress.end())
        next.push_back(it->second);
    for (Function *h : next)
      if (parent.emplace(h, g).second)
        queue.push_back(h);
  }
  return false;
}

bool ChopClient::mayEnd(Snapshot &s) {
  if (s.mayEnd < 0 && host.wholeProgram()) {
    // Whole-program answers are the same for every call of a function.
    auto known = wholeProgramMayEnd.find(s.f);
    if (known != wholeProgramMayEnd.end())
      s.mayEnd = known->second;
  }
  if (s.mayEnd < 0) {
    analyse(s);
    s.mayEnd = 0;
    if (!s.answer || !pspa::answer_ok(**s.answer))
      s.mayEnd = 1; // nothing known: it may
    else
      s.mayEnd = pspa::answer_may_call_any(host.analysisEngine(), **s.answer,
                                           rust::Slice<const std::size_t>(enders.data(), enders.size()));
    if (host.wholeProgram())
      wholeProgramMayEnd[s.f] = s.mayEnd;
  }
  return s.mayEnd == 1;
}

klee::Searcher *ChopClient::wrap(klee::Searcher *base) {
  searcher = new ChopSearcher(base, *this);
  return searcher;
}

bool ChopClient::isRecovery(const klee::ExecutionState *s) const {
  auto it = paths.find(s);
  return it != paths.end() && it->second.recovery;
}

bool ChopClient::beforeCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                            std::vector<klee::ref<klee::Expr>> &args) {
  if (f && f->isDeclaration() && !f->isIntrinsic() && searcher && declaredCall(state, ki, f, args))
    return true;
  auto sk = skip.find(f);
  // Not while KLEE seeds (its searcher, which pauses paths, comes after), nor an invoke
  // (the hook's skip would not branch to its normal destination).
  if (sk == skip.end() || !searcher)
    return false;
  if (isa<InvokeInst>(ki->inst)) {
    if (warnedInvoke.insert(f).second)
      klee::klee_warning("pspa chop: --skip-functions: a call of %s by invoke (C++, at %s) is run, not skipped: "
                         "its exceptional edge would be lost",
                         f->getName().str().c_str(), where(ki).c_str());
    ++invokeCalls;
    return false;
  }
  auto pit = paths.find(&state);
  if (pit != paths.end() && pit->second.runCall) {
    // A recovery state running its skipped call.
    pit->second.runCall = false;
    return false;
  }
  // Inside a recovery every call runs: a skip there would not reach the waiting path.
  if (pit != paths.end() && pit->second.recovery)
    return false;
  unsigned line = ki && ki->info ? ki->info->line : 0;
  if (!sk->second.empty() && !sk->second.count(line))
    return false;
  FunctionStats &fs = stats[f->getName().str()];
  PathState &p = paths[&state];
  // This call again (a loop): the result of its last skip is no longer the register's.
  for (Pending &q : p.pending)
    if (q.result && q.snap->call == ki && q.snap->state->stack.size() == state.stack.size()) {
      q.result = false;
      unwatch(state);
    }
  bool result = !ki->inst->use_empty();
  if (result)
    ++fs.resultUsed;
  auto snap = std::make_shared<Snapshot>();
  snap->seq = ++snapshots;
  snap->f = f;
  snap->call = ki;
  snap->args = args;
  snap->firstNew = klee::MemoryObject(0).id;
  snap->state = state.copy();
  snap->before = p.pending;
  // Invariant: pending calls oldest first (seqs increase). The post-state of the youngest
  // covers the older ones' (analyses join it alone), and recoveries go oldest first.
  assert((p.pending.empty() || p.pending.back().snap->seq < snap->seq) && "pending skips oldest first");
  p.pending.push_back(Pending{snap, result, {}});
  if (result)
    ++state.pluginWatch; // its uses are held until the call is recovered
  ++fs.snapshots;
  ++statSnapshots;
  return true;
}

void ChopClient::analyse(Snapshot &s) {
  if (s.analysed)
    return;
  s.analysed = true;
  if (host.wholeProgram()) {
    s.answer = host.wholeProgramAnswer(s.f);
    return;
  }
  // The snapshot lacks the writes of the older skips still pending at the call: their
  // post-states join it, so the call's sets cover what it does after them.
  std::vector<Answer> older;
  for (Pending &q : s.before) {
    analyse(*q.snap);
    older.push_back(q.snap->answer);
  }
  if (!older.empty())
    ++joinedAnalyses;
  s.answer = host.analyze(*s.state, s.call, s.f, s.args, older, /*keepPost=*/true);
}

std::vector<Answer> ChopClient::pendingAnswers(const klee::ExecutionState &state) {
  std::vector<Answer> out;
  auto it = paths.find(&state);
  if (it == paths.end() || host.wholeProgram())
    return out;
  for (Pending &q : it->second.pending) {
    analyse(*q.snap);
    out.push_back(q.snap->answer);
  }
  assert(std::is_sorted(it->second.pending.begin(), it->second.pending.end(),
                        [](const Pending &a, const Pending &b) { return a.snap->seq < b.snap->seq; }) &&
         "pending skips oldest first: the youngest's post-state covers the older ones'");
  return out;
}

bool ChopClient::mayWrite(Snapshot &s, const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes,
                          bool known) {
  analyse(s);
  if (!s.answer || !pspa::answer_ok(**s.answer))
    return true; // no answer: the call may write anything
  return pspa::answer_may_write(host.analysisEngine(), **s.answer, liveObject(mo, s.firstNew), off, bytes, known);
}

bool ChopClient::mayFree(Snapshot &s, const klee::MemoryObject *mo) {
  auto known = s.mayFreeOf.find(mo->id);
  if (known != s.mayFreeOf.end())
    return known->second;
  bool may;
  if (!mayWrite(s, mo, 0, 0, false)) // analyses the call first; a free is a write
    may = false;
  else if (!s.answer || !pspa::answer_ok(**s.answer))
    may = true;
  else
    may = pspa::answer_may_free(host.analysisEngine(), **s.answer, liveObject(mo, s.firstNew));
  s.mayFreeOf.emplace(mo->id, may);
  return may;
}

bool ChopClient::onMemoryAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                                klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) {
  auto it = paths.find(&state);
  if (it == paths.end())
    return false;
  PathState &p = it->second;
  if (p.pending.empty() && !p.recovery && !p.dead)
    return false;
  if (p.dead) {
    // Every recovery this path waited for ended in an error: the path ends here.
    host.kleeExecutor().discardPluginState(state);
    return true;
  }
  const klee::ObjectState *os = state.addressSpace.findObject(mo);
  if (os && os->readOnly)
    return false; // nothing writes it
  auto *ce = dyn_cast<klee::ConstantExpr>(offset);
  std::uint64_t off = ce ? ce->getZExtValue() : 0;
  // The oldest pending call that may have written these bytes, not written since.
  for (std::size_t i = 0; i < p.pending.size(); ++i) {
    Pending &q = p.pending[i];
    if (mo->id >= q.snap->firstNew)
      continue; // allocated after the skip: the call never saw it
    if (isWrite) {
      if (ce) {
        // A write into an object the call may have freed: in program order a use after
        // free, which only the recovery's free reveals. Else marked below.
        if (!mayFree(*q.snap, mo))
          continue;
        ++freeWriteRecoveries;
        recover(state, p, i, ki);
        return true;
      }
      // A write at a symbolic offset: which bytes it overwrites is not known, so the
      // call's bytes are brought in first.
      if (!mayWrite(*q.snap, mo, 0, 0, false))
        continue;
      ++symbolicWriteRecoveries;
    } else {
      auto nb = q.newer.find(mo);
      if (ce && allMarked(nb == q.newer.end() ? nullptr : &nb->second, off, bytes))
        continue;
      if (!mayWrite(*q.snap, mo, off, bytes, ce != nullptr))
        continue;
    }
    if (isWrite)
      recover(state, p, i, ki); // a write at a symbolic offset: nothing to judge
    else
      recover(state, p, i, ki, mo, off, bytes, ce != nullptr);
    return true;
  }
  if (isWrite) {
    for (Pending &q : p.pending)
      if (mo->id < q.snap->firstNew)
        mark(q.newer[mo], mo->size, off, bytes);
    if (p.recovery && mo->id < p.recovery->snap->firstNew) {
      if (ce)
        markBy(p.wrote[mo], mo->size, off, bytes, p.recovery->snap->seq);
      else
        markBy(p.wrote[mo], mo->size, 0, mo->size, p.recovery->snap->seq);
    }
  }
  return false;
}

bool ChopClient::declaredCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                              std::vector<klee::ref<klee::Expr>> &args) {
  auto pit = paths.find(&state);
  if (pit == paths.end() || (pit->second.pending.empty() && !pit->second.recovery))
    return false;
  PathState &p = pit->second;
  StringRef name = f->getName();
  if (name == "klee_make_symbolic") {
    // It replaces its bytes without a store: they are newer than the pending calls', and
    // in a recovery they are the call's writes.
    auto *addr = args.size() > 1 ? dyn_cast<klee::ConstantExpr>(args[0]) : nullptr;
    auto *size = args.size() > 1 ? dyn_cast<klee::ConstantExpr>(args[1]) : nullptr;
    klee::ObjectPair op;
    if (addr && size && state.addressSpace.resolveOne(addr, op)) {
      std::uint64_t off = addr->getZExtValue() - op.first->address;
      onMemoryAccess(state, ki, op.first, klee::ConstantExpr::create(off, addr->getWidth()),
                     static_cast<unsigned>(size->getZExtValue()), true);
    }
    return false;
  }
  if (endingHandlers().count(name)) {
    // The path ends here (an error, an exit). A pending call that may itself end the path
    // (exit, abort, a failed assertion, as its analysis says) comes first in program
    // order: it is recovered before, so that the path reports what the program does
    // first, and never an error past a call that ended it. Then the handler runs again.
    for (std::size_t i = 0; i < p.pending.size(); ++i)
      if (mayEnd(*p.pending[i].snap)) {
        ++endRecoveries;
        recover(state, p, i, ki);
        state.pc = state.prevPC;
        return true;
      }
    return false;
  }
  // KLEE's own handlers (SpecialFunctionHandler.cpp's table) touch no memory of the
  // program but what the hooks see; those that end the path read only constant strings.
  static const std::set<StringRef> handled = { // no string built per call
      "malloc", "calloc", "realloc", "free", "memalign", "aligned_alloc", "__errno_location", "__error",
      "_Znwm", "_Znam", "_Znwj", "_Znaj", "_ZdlPv", "_ZdaPv", "__assert_rtn", "__assert_fail", "__assert",
      "_assert", "abort", "exit", "_exit", "_Exit", "_klee_eh_Unwind_RaiseException_impl"};
  if (name.startswith("klee_") || name.startswith("_klee_") || handled.count(name))
    return false;
  if (p.recovery) {
    // Its writes (KLEE copies memory back after it) are not seen, so they could not be
    // brought into the path: the path runs on from the snapshot instead.
    fallBack(state, "made an external call");
    return true;
  }
  // An external call: KLEE hands it the memory as it is, which the pending calls may have
  // written. They run first, oldest first, and the call runs again after each.
  ++externalRecoveries;
  recover(state, p, 0, ki);
  state.pc = state.prevPC;
  return true;
}

void ChopClient::recover(klee::ExecutionState &state, PathState &p, std::size_t i, klee::KInstruction *ki,
                         const klee::MemoryObject *trigger, std::uint64_t off, unsigned bytes, bool known) {
  std::shared_ptr<Snapshot> snap = p.pending[i].snap;
  FunctionStats &fs = stats[snap->f->getName().str()];
  ++fs.recoveries;
  std::string at = where(ki);
  if (fs.triggers.size() < 8 || fs.triggers.count(at))
    ++fs.triggers[at]; // the first eight load locations, counted
  ++statRecoveries;
  ++recoveries;
  // The call again, from the snapshot, under the path's constraints (a superset of the
  // snapshot's), naming the path's symbolic arrays, with the path's heap allocator so that
  // its new objects do not overlap the path's. Its stack allocator stays the snapshot's:
  // the frames are the snapshot's, and KLEE frees their locals when a state ends.
  klee::ExecutionState *r = snap->state->copy();
  r->constraints = state.constraints;
  r->symbolics = state.symbolics;
  r->arrayNames = state.arrayNames;
  r->heapAllocator = state.heapAllocator;
  r->coveredNew = false;
  r->pc = r->prevPC; // the call instruction
  PathState rp;
  rp.pending = snap->before;
  if (PspaChopReplay) {
    rp.effects = p.effects; // for the calls recovered inside this recovery
    replayEffects(p, *snap, *r, rp);
  }
  rp.runCall = true;
  rp.recovery = std::make_shared<Recovery>();
  rp.recovery->dependent = &state;
  rp.recovery->snap = snap;
  rp.recovery->depth = snap->state->stack.size();
  rp.recovery->trigger = trigger;
  rp.recovery->off = off;
  rp.recovery->bytes = bytes;
  rp.recovery->known = known;
  if (trigger)
    ++triggeredRecoveries;
  waiting[&state] = rp.recovery;
  paths[r] = std::move(rp);
  host.kleeExecutor().addPluginState(state, r);
  searcher->pause(state);
}

bool ChopClient::beforeInstruction(klee::ExecutionState &state, klee::KInstruction *ki) {
  auto it = paths.find(&state);
  if (it == paths.end())
    return false;
  PathState &p = it->second;
  if (p.dead) {
    host.kleeExecutor().discardPluginState(state);
    return true;
  }
  for (std::size_t i = 0; i < p.pending.size(); ++i) {
    const Pending &q = p.pending[i];
    if (!q.result || q.snap->state->stack.size() != state.stack.size())
      continue;
    for (const Use &u : ki->inst->operands())
      if (u.get() == q.snap->call->inst) {
        recover(state, p, i, ki);
        return true;
      }
  }
  return false;
}

void ChopClient::afterReturn(klee::ExecutionState &state) {
  auto it = paths.find(&state);
  if (it == paths.end())
    return;
  PathState &p = it->second;
  // A function returned: the results of the calls it skipped are dead.
  for (Pending &q : p.pending)
    if (q.result && q.snap->state->stack.size() > state.stack.size()) {
      q.result = false;
      unwatch(state);
    }
  if (!p.recovery || p.runCall || state.stack.size() != p.recovery->depth)
    return;
  complete(state, p);
}

void ChopClient::complete(klee::ExecutionState &r, PathState &rp) {
  std::shared_ptr<Recovery> rec = rp.recovery;
  klee::ExecutionState *d = rec->dependent;
  klee::Executor &ex = host.kleeExecutor();
  klee::ExecutionState *t;
  assert(rec->outstanding > 0 && "a recovery completes at most once per path of it");
  if (--rec->outstanding > 0 || rec->dependentGone) {
    // Another path of the call is still running: this one continues in a copy.
    t = rec->dependentGone ? nullptr : d->branch();
    if (t)
      ex.addPluginState(*d, t);
  } else {
    t = d;
    waiting.erase(d);
    searcher->resume(*d);
  }
  if (rec->trigger && !rec->judged) {
    // Spurious: the call (on this path of it) neither wrote the bytes that made the path
    // wait nor freed their object; what a more precise mod set saves.
    rec->judged = true;
    const klee::MemoryObject *mo = rec->trigger;
    bool wrote = !r.addressSpace.findObject(mo);
    auto w = rp.wrote.find(mo);
    for (std::size_t i = 0; !wrote && w != rp.wrote.end() && i < w->second.size(); ++i)
      wrote = w->second[i] != 0 && (!rec->known || (i >= rec->off && i < rec->off + std::max(1u, rec->bytes)));
    if (!wrote)
      ++spuriousRecoveries;
  }
  if (t) {
    t->constraints = r.constraints;
    t->symbolics = r.symbolics;
    t->arrayNames = r.arrayNames;
    apply(r, rp, *t, paths[t], *rec->snap);
  }
  completing = &r;
  ex.discardPluginState(r);
  completing = nullptr;
}

void ChopClient::apply(klee::ExecutionState &r, PathState &rp, klee::ExecutionState &t, PathState &tp,
                       const Snapshot &snap) {
  // The pending skip this recovery answers, and the ones recovered inside it, are done.
  auto done = [&](const Pending &q) { return q.snap.get() == &snap || rp.nested.count(q.snap->seq); };
  Pending *self = nullptr;
  for (Pending &q : tp.pending)
    if (q.snap.get() == &snap)
      self = &q;
  // The bytes the call wrote, except those written after it.
  for (auto &[mo, wrote] : rp.wrote) {
    const klee::ObjectState *ro = r.addressSpace.findObject(mo);
    const klee::ObjectState *to = t.addressSpace.findObject(mo);
    if (!ro || !to)
      continue; // freed by the call, or by the path since
    const std::vector<bool> *newer = nullptr;
    if (self) {
      auto nb = self->newer.find(mo);
      if (nb != self->newer.end())
        newer = &nb->second;
    }
    klee::ObjectState *w = t.addressSpace.getWriteable(mo, to);
    for (std::size_t i = 0; i < wrote.size() && i < mo->size; ++i) {
      unsigned by = wrote[i];
      if (!by || (newer && i < newer->size() && (*newer)[i]))
        continue;
      w->write(i, ro->read8(i));
      // Newer than the path's pending skips older than the call that wrote it (the
      // recovered call, or an older one recovered inside it), not than the younger ones:
      // a pending skip between a nested call and this one writes after the nested call.
      for (Pending &q : tp.pending) {
        if (q.snap->seq >= by)
          break;
        if (mo->id < q.snap->firstNew)
          mark(q.newer[mo], mo->size, i, 1);
      }
      if (tp.recovery && mo->id < tp.recovery->snap->firstNew)
        markBy(tp.wrote[mo], mo->size, i, 1, by);
    }
  }
  // Objects the call allocated and did not free; objects it freed.
  for (auto it = r.addressSpace.objects.begin(); it != r.addressSpace.objects.end(); ++it) {
    const klee::MemoryObject *mo = it->first;
    if (mo->id >= snap.firstNew && !mo->isLocal && !t.addressSpace.findObject(mo))
      t.addressSpace.bindObject(mo, new klee::ObjectState(*it->second.get()));
  }
  for (auto it = snap.state->addressSpace.objects.begin(); it != snap.state->addressSpace.objects.end(); ++it) {
    const klee::MemoryObject *mo = it->first;
    if (r.addressSpace.findObject(mo) || !t.addressSpace.findObject(mo))
      continue;
    // The path wrote it after the skip: in program order, a write after the free. A
    // write into an object in the call's may-free set recovers the call first, so this
    // counts what the may-free set missed (expected 0).
    if (self && self->newer.count(mo) && writesAfterFree++ == 0)
      klee::klee_warning("pspa chop: the path wrote an object that the skipped %s frees, after the call "
                         "(a use after free KLEE alone reports; further cases only counted)",
                         snap.f->getName().str().c_str());
    t.addressSpace.unbindObject(mo);
  }
  t.heapAllocator = r.heapAllocator;
  // The results of the calls recovered here, for a path that will use them: the
  // recovery bound each in the frame that made the call, which the path still has.
  for (Pending &q : tp.pending) {
    if (!q.result || !done(q))
      continue;
    std::size_t depth = q.snap->state->stack.size();
    if (depth <= t.stack.size() && depth <= r.stack.size())
      t.stack[depth - 1].locals[q.snap->call->dest].value = r.stack[depth - 1].locals[q.snap->call->dest].value;
    q.result = false;
    unwatch(t);
  }
  // The skips recovered here leave the path; a recovery inside a recovery is the outer
  // recovery's (its bytes are already among the outer call's writes).
  if (tp.recovery)
    for (const Pending &q : tp.pending)
      if (done(q))
        tp.nested.insert(q.snap->seq);
  // What the call did on this path, for the younger pending calls' recoveries: their
  // snapshots predate it, and running it again inside each of them is what made nested
  // recoveries grow with the number of pending calls.
  if (!PspaChopReplay) {
    tp.pending.erase(std::remove_if(tp.pending.begin(), tp.pending.end(), done), tp.pending.end());
    return;
  }
  auto e = std::make_shared<Effect>();
  e->seq = snap.seq;
  e->covers = rp.nested;
  e->covers.insert(snap.seq);
  for (auto &[mo, wrote] : rp.wrote) {
    const klee::ObjectState *ro = r.addressSpace.findObject(mo);
    if (!ro)
      continue;
    std::vector<Effect::Byte> bytes;
    for (unsigned i = 0; i < wrote.size() && i < mo->size; ++i)
      if (wrote[i])
        bytes.push_back({i, ro->read8(i), wrote[i]});
    if (!bytes.empty())
      e->wrote.emplace_back(mo, std::move(bytes));
  }
  for (auto it = r.addressSpace.objects.begin(); it != r.addressSpace.objects.end(); ++it)
    if (it->first->id >= snap.firstNew && !it->first->isLocal)
      e->allocated.emplace_back(it->first, new klee::ObjectState(*it->second.get()));
  for (auto it = snap.state->addressSpace.objects.begin(); it != snap.state->addressSpace.objects.end(); ++it)
    if (!r.addressSpace.findObject(it->first))
      e->freed.emplace_back(it->first);
  tp.pending.erase(std::remove_if(tp.pending.begin(), tp.pending.end(), done), tp.pending.end());
  for (unsigned s : e->covers)
    tp.effects[s] = e;
  // Kept while a pending call's snapshot predates the call (it was pending then).
  std::set<unsigned> needed;
  for (const Pending &q : tp.pending)
    for (const Pending &b : q.snap->before)
      needed.insert(b.snap->seq);
  for (auto it = tp.effects.begin(); it != tp.effects.end();)
    it = needed.count(it->first) ? std::next(it) : tp.effects.erase(it);
}

void ChopClient::replayEffects(const PathState &p, const Snapshot &snap, klee::ExecutionState &r, PathState &rp) {
  // The writer of each byte replayed so far: a call's byte never replaces a younger one's.
  std::map<const klee::MemoryObject *, std::vector<unsigned>> by;
  for (const Pending &b : snap.before) {
    auto it = p.effects.find(b.snap->seq);
    // At the call's own place among the older calls, never for a call recovered inside a
    // younger one (that effect holds the younger call's bytes too); and not for a call
    // whose result is pending, whose watch the recovery keeps.
    if (b.result || it == p.effects.end() || it->second->seq != b.snap->seq)
      continue;
    const Effect &e = *it->second;
    for (const auto &[mref, bytes] : e.wrote) {
      const klee::MemoryObject *mo = mref.get();
      const klee::ObjectState *os = r.addressSpace.findObject(mo);
      if (!os)
        continue;
      // Written by the path after the call and before this snapshot: the snapshot's bytes.
      auto nb = b.newer.find(mo);
      const std::vector<bool> *newer = nb == b.newer.end() ? nullptr : &nb->second;
      std::vector<unsigned> &seen = by[mo];
      seen.resize(mo->size, 0);
      klee::ObjectState *w = r.addressSpace.getWriteable(mo, os);
      for (const Effect::Byte &x : bytes) {
        if ((newer && x.at < newer->size() && (*newer)[x.at]) || x.at >= mo->size || seen[x.at] > x.by)
          continue;
        w->write(x.at, x.value);
        seen[x.at] = x.by;
        for (Pending &q : rp.pending) {
          if (q.snap->seq >= x.by)
            break;
          if (mo->id < q.snap->firstNew)
            mark(q.newer[mo], mo->size, x.at, 1);
        }
      }
    }
    for (const auto &[mo, os] : e.allocated)
      if (!r.addressSpace.findObject(mo.get()))
        r.addressSpace.bindObject(mo.get(), new klee::ObjectState(*os.get()));
    for (const auto &mo : e.freed)
      if (r.addressSpace.findObject(mo.get()))
        r.addressSpace.unbindObject(mo.get());
    ++replayedEffects;
    rp.pending.erase(std::remove_if(rp.pending.begin(), rp.pending.end(),
                                    [&](const Pending &q) { return !q.result && e.covers.count(q.snap->seq); }),
                     rp.pending.end());
  }
}

void ChopClient::afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  auto it = paths.find(&state);
  if (it == paths.end() || !it->second.recovery)
    return;
  // The recovery allocates with the waiting path's allocator, so that its objects can join
  // the path; an object the path freed after the skip still lives in the recovery, and the
  // allocator may hand its address out again.
  std::shared_ptr<Recovery> rec = it->second.recovery;
  klee::ObjectPair op;
  auto at = klee::ConstantExpr::create(mo->address, klee::Context::get().getPointerWidth());
  if (!rec->snap->state->addressSpace.resolveOne(at, op) || op.first == mo)
    return;
  fallBack(state, "allocated where a freed object of its snapshot lies");
}

bool ChopClient::beforeFree(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  auto it = paths.find(&state);
  if (it == paths.end() || it->second.dead)
    return false;
  // A recovery frees an object of its snapshot that the waiting path has freed since
  // (with the allocator the recovery shares): in program order the call freed it first,
  // so the path's free was a double free, which only a run in that order reports.
  PathState &p = it->second;
  std::shared_ptr<Recovery> rec = p.recovery;
  if (rec && chainGone(*rec)) {
    // The path it serves has ended (KLEE's memory cap): the shared allocator is no
    // longer a path's, and the answer would go nowhere.
    endRecovery(state);
    return true;
  }
  if (rec && mo->id < rec->snap->firstNew && !allocatedBelow(*rec, mo)) {
    fallBack(state, "freed an object the path freed after the skip");
    return true;
  }
  // A pending call that may have freed (models: free writes its object) or written the
  // object runs first: its free is older, and a double free is reported at the path's.
  for (std::size_t i = 0; i < p.pending.size(); ++i) {
    if (mo->id >= p.pending[i].snap->firstNew || !mayWrite(*p.pending[i].snap, mo, 0, 0, false))
      continue;
    recover(state, p, i, state.prevPC, mo, 0, 0, false);
    return true;
  }
  return false;
}

template <typename Pred> bool ChopClient::anyDown(const Recovery &rec, Pred pred) {
  // The chain of waiting paths: a recovery's dependent may be a recovery too, down to a
  // path KLEE runs.
  for (const Recovery *r = &rec;;) {
    if (pred(*r))
      return true;
    if (r->dependentGone)
      return false;
    auto it = paths.find(r->dependent);
    if (it == paths.end() || !it->second.recovery)
      return false;
    r = it->second.recovery.get();
  }
}

bool ChopClient::allocatedBelow(const Recovery &rec, const klee::MemoryObject *mo) {
  // The recovery's allocator is its waiting path's: the object is still allocated there
  // if each state down the chain still has it (a free anywhere in the chain unbinds it
  // from the state it reaches).
  return !anyDown(rec, [&](const Recovery &r) { return !r.dependentGone && !r.dependent->addressSpace.findObject(mo); });
}

bool ChopClient::chainGone(const Recovery &rec) {
  return anyDown(rec, [](const Recovery &r) { return r.dependentGone; });
}

void ChopClient::fallBack(klee::ExecutionState &state, const char *why) {
  // This path of the call runs from the snapshot with its constraints, its own allocator,
  // and the call not skipped, as a path like any other.
  std::shared_ptr<Recovery> rec = paths[&state].recovery;
  if (fallbacks++ == 0)
    klee::klee_warning("pspa chop: a recovery of %s %s; that path runs on from the snapshot without skipping "
                       "the call (further cases only counted)",
                       rec->snap->f->getName().str().c_str(), why);
  klee::ExecutionState *f = rec->snap->state->copy();
  f->constraints = state.constraints;
  f->symbolics = state.symbolics;
  f->arrayNames = state.arrayNames;
  f->pc = f->prevPC;
  PathState fp;
  fp.pending = rec->snap->before;
  fp.runCall = true;
  paths[f] = std::move(fp);
  host.kleeExecutor().addPluginState(state, f);
  endRecovery(state);
}

void ChopClient::stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) {
  auto it = paths.find(&parent);
  if (it == paths.end())
    return;
  PathState copy = it->second;
  if (copy.recovery)
    ++copy.recovery->outstanding; // a fork inside the recovery: the path forks with it
  paths[&child] = std::move(copy);
}

void ChopClient::stateTerminated(klee::ExecutionState &state) {
  auto w = waiting.find(&state);
  if (w != waiting.end()) {
    // The run is ending while this path waits (KLEE ends every state).
    w->second->dependentGone = true;
    waiting.erase(w);
  }
  auto it = paths.find(&state);
  if (it == paths.end())
    return;
  std::shared_ptr<Recovery> rec = it->second.recovery;
  paths.erase(it);
  if (!rec || &state == completing)
    return;
  // The recovery ended without returning (an error in the skipped call: KLEE reported it
  // with this state's inputs, which the waiting path shares).
  ++failedRecoveries;
  released(rec);
}

void ChopClient::endRecovery(klee::ExecutionState &r) {
  auto it = paths.find(&r);
  std::shared_ptr<Recovery> rec = it->second.recovery;
  completing = &r;
  host.kleeExecutor().discardPluginState(r);
  completing = nullptr;
  released(rec);
}

void ChopClient::released(const std::shared_ptr<Recovery> &rec) {
  assert(rec->outstanding > 0 && "a recovery path ends at most once");
  if (--rec->outstanding == 0 && !rec->dependentGone) {
    klee::ExecutionState *d = rec->dependent;
    waiting.erase(d);
    auto dp = paths.find(d);
    if (dp != paths.end())
      dp->second.dead = true;
    ++d->pluginWatch; // discarded at its next instruction, before anything forks it
    searcher->resume(*d);
  }
}

void ChopClient::report(klee::InterpreterHandler &handler, llvm::json::Object &json) {
  llvm::errs() << "KLEE: done: recovery states = " << recoveries << "\n";
  llvm::errs() << "KLEE: done: created snapshots = " << snapshots << "\n";
  std::uint64_t resultUsed = 0;
  for (auto &[name, s] : stats)
    resultUsed += s.resultUsed;
  json["chop"] = llvm::json::Object{{"recovery_states", recoveries},
                                    {"snapshots", snapshots},
                                    {"recoveries_ended_before_returning", failedRecoveries},
                                    {"symbolic_write_recoveries", symbolicWriteRecoveries},
                                    {"result_used", resultUsed},
                                    {"joined_mod_sets", joinedAnalyses},
                                    {"external_call_recoveries", externalRecoveries},
                                    {"free_write_recoveries", freeWriteRecoveries},
                                    {"writes_after_free", writesAfterFree},
                                    {"fallbacks", fallbacks},
                                    {"replayed_effects", replayedEffects},
                                    {"triggered_recoveries", triggeredRecoveries},
                                    {"spurious_recoveries", spuriousRecoveries},
                                    {"refused_skips", refusedSkips},
                                    {"invoke_calls", invokeCalls},
                                    {"end_recoveries", endRecoveries}};
  llvm::errs() << "KLEE: done: pspa chop: recoveries ended before returning = " << failedRecoveries
               << ", recovered before a write at a symbolic offset = " << symbolicWriteRecoveries
               << ", skipped calls whose result is used = " << resultUsed
               << ", mod sets joined with older pending skips' post-states = " << joinedAnalyses
               << ", recovered before an external call = " << externalRecoveries
               << ", recovered before a write into an object it may free = " << freeWriteRecoveries
               << ", writes after a skipped free = " << writesAfterFree
               << ", recovery paths run on from the snapshot (allocation clash, double free, external call) = "
               << fallbacks << "\n";
  llvm::errs() << "KLEE: done: pspa chop: recovered calls replayed into younger recoveries instead of run again = "
               << replayedEffects << "\n";
  llvm::errs() << "KLEE: done: pspa chop: recoveries waited for by a load or a free = " << triggeredRecoveries
               << ", of which the call wrote none of those bytes (spurious) = " << spuriousRecoveries << "\n";
  llvm::errs() << "KLEE: done: pspa chop: functions not skipped (noreturn, or constrain the input) = " << refusedSkips
               << ", calls by invoke run (not skipped) = " << invokeCalls
               << ", recovered before the path ends (the call may end it) = " << endRecoveries << "\n";
  auto out = handler.openOutputFile("chop.csv");
  if (!out)
    return;
  *out << "function,snapshots,recoveries,result_used,recovering_accesses\n";
  for (auto &[name, s] : stats) {
    std::string loads;
    for (auto &[at, n] : s.triggers)
      loads += (loads.empty() ? "" : " ") + at + "x" + std::to_string(n);
    *out << name << ',' << s.snapshots << ',' << s.recoveries << ',' << s.resultUsed << ",\"" << loads << "\"\n";
  }
}

} // namespace pspa_plugin
