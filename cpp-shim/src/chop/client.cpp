// Chopped symbolic execution (paper 6.2; Chopper, ICSE'18): the calls the user names are not
// run. The path keeps a snapshot of the state at the call and goes on; when it later loads
// bytes the call may have written (the call's mod set: whole-program, or past-sensitive from
// the snapshot), it waits while a recovery state runs the call from the snapshot, under the
// path's constraints, and the bytes the call wrote are then copied into it.
//
// Byte order of effects. A pending skip remembers, per object, the bytes written after it
// (by the path, or by the recovery of a later skip); the recovery never overwrites those.
// A recovery's writes count as "after" every older pending skip of the path, never of a
// younger one: program order is kept whatever order the recoveries run in. The rule is
// PathState::written (path.h); this file holds the hooks that decide what waits.
//
// A skipped call whose result is used leaves the result register unset: the path's first
// instruction that uses it waits for the call's recovery, which binds it. A write at a
// symbolic offset into an object a pending call may write recovers that call first.

#include "chop/chop.h"
#include "chop/options.h"
#include "chop/searcher.h"

#include "klee/Module/InstructionInfoTable.h"
#include "klee/Module/Cell.h"
#include "klee/Module/KInstruction.h"
#include "klee/Statistics/Statistic.h"
#include "klee/Support/ErrorHandling.h"
#include "klee/Support/OptionCategories.h"
#include "klee/System/MemoryUsage.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Executor.h"
#include "lib/Core/Memory.h"
#include "lib/Core/Searcher.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cassert>
#include <map>
#include <set>
#include <sstream>
#include <string>

using namespace llvm;
using pspa_plugin::chop::unwatch;
using pspa_plugin::chop::where;

namespace pspa_plugin {

std::string chop::where(const klee::KInstruction *ki) {
  if (!ki || !ki->info || ki->info->file.empty())
    return "?";
  std::string f = ki->info->file;
  auto slash = f.rfind('/');
  return (slash == std::string::npos ? f : f.substr(slash + 1)) + ":" + std::to_string(ki->info->line);
}


namespace {
/// KLEE's handlers (and the C library's functions) that end the path where they are
/// called: an error (abort, a failed assertion, KLEE's checks), an exit, or a jump away.
const std::set<StringRef> &endingHandlers() {
  static const std::set<StringRef> names = {
      "exit",        "_exit",          "_Exit",         "quick_exit",   "abort",        "__assert_fail",
      "__assert_rtn", "__assert",      "_assert",       "klee_silent_exit", "klee_abort", "klee_report_error",
      "longjmp",     "_longjmp",       "siglongjmp",    "__longjmp_chk", "pthread_exit", "__cxa_throw",
      "__cxa_rethrow", "_Unwind_Resume", "_Unwind_RaiseException", "__stack_chk_fail"};
  return names;
}

/// Of those, the ones that end the path without an error, after which nothing of the
/// program runs; and uclibc's `_stdio_term`, which exit calls after the atexit handlers
/// only to flush the streams before `_exit`.
/// KLEE's POSIX runtime's concretization (fd.c: `__concretize_ptr`, `_size`, `_string`):
/// klee_assume of a value klee_get_value just picked, so it holds under any constraints
/// it runs under. It narrows what KLEE explores, not what the program does: a skipped call
/// that reaches klee_assume only through it (a logger's write) may be skipped, and its
/// recovery cannot contradict the path.
bool concretizes(const Function &f) { return f.getName().startswith("__concretize_"); }

bool endsCleanly(StringRef name) {
  return name == "exit" || name == "_exit" || name == "_Exit" || name == "quick_exit" ||
         name == "klee_silent_exit" || name == "_stdio_term";
}

/// A declared function KLEE runs outside the program (an external call), handed the memory
/// as it is: not KLEE's own handlers (SpecialFunctionHandler.cpp's table), which touch no
/// memory of the program but what the hooks see (those that end the path read only
/// constant strings), nor the path's end.
bool runsExternally(StringRef name) {
  static const std::set<StringRef> handled = { // no string built per call
      "malloc", "calloc", "realloc", "free", "memalign", "aligned_alloc", "__errno_location", "__error",
      "_Znwm", "_Znam", "_Znwj", "_Znaj", "_ZdlPv", "_ZdaPv", "__assert_rtn", "__assert_fail", "__assert",
      "_assert", "abort", "exit", "_exit", "_Exit", "_klee_eh_Unwind_RaiseException_impl"};
  return !name.startswith("klee_") && !name.startswith("_klee_") && !handled.count(name) && !endsCleanly(name) &&
         !endingHandlers().count(name);
}

/// A function that ends the path where it is called.
bool endsPath(const Function &f) { return f.doesNotReturn() || endingHandlers().count(f.getName()); }
} // namespace

ChopClient::ChopClient(Host &host, llvm::Module &m) : host(host), module(&m) {
  // KLEE's --max-memory, from its registered option (Executor.cpp keeps it file-local).
  auto &registered = cl::getRegisteredOptions();
  auto mm = registered.find("max-memory");
  if (mm != registered.end())
    maxMemoryMB = static_cast<cl::opt<unsigned> *>(mm->second)->getValue();
  // What may constrain the input: the functions that call klee_assume directly, except
  // KLEE's concretization; klee_assume itself if its address is taken (then any indirect
  // call may be one).
  if (Function *assume = m.getFunction("klee_assume")) {
    for (const Use &u : assume->uses()) {
      auto *cb = dyn_cast<CallBase>(u.getUser());
      if (!cb || cb->getCalledOperand()->stripPointerCasts() != assume) {
        constrainers.push_back(reinterpret_cast<std::size_t>(assume));
        continue;
      }
      Function *caller = cb->getFunction();
      if (!concretizes(*caller))
        constrainers.push_back(reinterpret_cast<std::size_t>(caller));
    }
    std::sort(constrainers.begin(), constrainers.end());
    constrainers.erase(std::unique(constrainers.begin(), constrainers.end()), constrainers.end());
  }
  // What may end a path: the handlers, and the functions holding an `unreachable` (what
  // follows a call that does not return, or __builtin_unreachable): a skipped call that
  // may run one of them is recovered before the path ends (declaredCall).
  for (Function &g : m) {
    // Calls the answers do not follow end the process: always among these (asserted
    // here, not left to two lists agreeing).
    bool ends = endsPath(g) ||
                pspa::engine_not_followed(host.analysisEngine(), reinterpret_cast<std::size_t>(&g));
    for (BasicBlock &bb : g)
      for (Instruction &inst : bb)
        ends |= isa<UnreachableInst>(inst);
    if (ends)
      enders.push_back(reinterpret_cast<std::size_t>(&g));
  }
  for (const chop::SkipSpec &spec : chop::skipSpecs()) {
    if (spec.automatic)
      continue; // chosen during the run (auto.cpp)
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
    if (!f->doesNotReturn() && !host.wholeProgram() && mayConstrain(m, f, chain)) {
      // Per the whole program's call graph (function pointers resolved flow-insensitively,
      // over every run) it may. Past-sensitively, the state's function pointers decide:
      // each call is analysed when it would be skipped, and run if its answer may call
      // klee_assume.
      checkConstrain.insert(f);
      klee::klee_message("pspa chop: --skip-functions: %s may constrain the path's input per the whole program "
                         "(%s): each call is skipped only if its past-sensitive analysis says it cannot",
                         spec.name.c_str(), chain.c_str());
    } else if (f->doesNotReturn() || mayConstrain(m, f, chain)) {
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
  autoTop = chop::autoTop();
  if (autoTop || chop::profileOn())
    // Online (auto alone) only functions whose calls so far may pay back a skip are analysed:
    // analyses cost the run's time.
    profiler = std::make_unique<chop::Profiler>(
        host, [this](Function *f) { return refuse(f); }, chop::profileSample(), /*payingOnly=*/!chop::profileOn());
}

std::string ChopClient::refuse(Function *f, std::string *chain) {
  if (f->isDeclaration())
    return "no body in the module";
  if (f->getName() == "main")
    return "the program itself";
  if (f->doesNotReturn())
    return "it does not return";
  std::size_t addr = reinterpret_cast<std::size_t>(f);
  if (pspa::engine_not_followed(host.analysisEngine(), addr))
    return "it ends the process";
  if (f->getName().startswith("klee_") || f->getName().startswith("_klee_") || concretizes(*f))
    return "KLEE's runtime";
  if (pspa::engine_body_modelled(host.analysisEngine(), addr))
    return "a library model replaces its body in the analysis";
  // Past-sensitively each call is checked (checkConstrain), so only SPA refuses: asked
  // per function only there or when admitting one.
  if (host.wholeProgram() || chain) {
    std::string c;
    if (mayConstrain(*module, f, c)) {
      if (host.wholeProgram())
        return "it may constrain the input (" + c + ")";
      *chain = c;
    }
  }
  return "";
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
      if (!concretizes(*h) && parent.emplace(h, g).second)
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

bool ChopClient::mayAssume(Snapshot &s) {
  analyse(s);
  if (!s.answer || !pspa::answer_ok(**s.answer))
    return true; // no answer: it may
  if (!constrainers.empty() &&
      pspa::answer_may_call_any(host.analysisEngine(), **s.answer,
                                rust::Slice<const std::size_t>(constrainers.data(), constrainers.size())))
    return true;
  // What runs under a call that ends the process is not in the answer: whether that code
  // may call klee_assume is the whole program's answer.
  if (!endingConstrainers) {
    endingConstrainers.emplace();
    std::string chain;
    for (Function &g : *module)
      if (pspa::engine_not_followed(host.analysisEngine(), reinterpret_cast<std::size_t>(&g)) &&
          mayConstrain(*module, &g, chain))
        endingConstrainers->push_back(reinterpret_cast<std::size_t>(&g));
  }
  return !endingConstrainers->empty() &&
         pspa::answer_may_call_any(host.analysisEngine(), **s.answer,
                                   rust::Slice<const std::size_t>(endingConstrainers->data(),
                                                                  endingConstrainers->size()));
}

klee::Searcher *ChopClient::wrap(klee::Searcher *base) {
  searcher = new chop::Searcher(base, *this);
  return searcher;
}

bool ChopClient::isRecovery(const klee::ExecutionState *s) const {
  const PathState *p = paths.find(*s);
  return p && p->recovery;
}

bool ChopClient::beforeCall(CallSite &c) {
  klee::ExecutionState &state = c.state;
  klee::KInstruction *ki = c.ki;
  Function *f = c.f;
  std::vector<klee::ref<klee::Expr>> &args = c.args;
  if (!f || f->isIntrinsic())
    return false;
  if (f->isDeclaration() && searcher && declaredCall(state, ki, f, args))
    return true;
  if (!f->isDeclaration() && searcher && endsCleanly(f->getName())) {
    PathState *p = paths.find(state);
    if (p && !p->pending.empty() && cleanEnd(state, *p, ki))
      return true;
  }
  if (autoTop && searcher && !f->isDeclaration() && !isRecovery(&state))
    autoChoose({f, ki && ki->info ? ki->info->line : 0});
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
  PathState *pp = paths.find(state);
  if (pp && pp->runCall) {
    // A recovery state running its skipped call.
    pp->runCall = false;
    return false;
  }
  // Inside a recovery every call runs: a skip there would not reach the waiting path.
  if (pp && pp->recovery)
    return false;
  unsigned line = ki && ki->info ? ki->info->line : 0;
  if (!sk->second.empty() && !sk->second.count(line))
    return false;
  if (pp && pp->holdsHuge) {
    // A snapshot shares the path's objects, so the path's next write into a huge one
    // makes KLEE copy it whole (libtasn1 CVE-2012-1569's driver allocates 2 GiB from a
    // length it decodes, and KLEE's own copies of it across states reached 19.7 GB). The
    // path runs its calls from then on, so the plugin adds no copy of its own.
    if (hugeObjectCalls++ == 0)
      klee::klee_warning("pspa chop: a path allocated an object of %llu MB or more: its skipped functions' "
                         "calls run from then on (further cases only counted)",
                         static_cast<unsigned long long>(hugeObjectBytes() >> 20));
    return false;
  }
  if (atMemoryCap()) {
    // A snapshot keeps the state's objects alive while the path writes its own copies:
    // over KLEE's cap, the call runs instead, so the plugin adds nothing KLEE cannot free
    // by ending states.
    if (memoryCapCalls++ == 0)
      klee::klee_warning("pspa chop: over --max-memory: skipped functions' calls run (no snapshot) "
                         "while the cap is exceeded (further cases only counted)");
    return false;
  }
  chop::FunctionStats &fs = stats[f->getName().str()];
  PathState &p = paths[state];
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
  snap->seq = snapshots + 1;
  snap->f = f;
  snap->call = ki;
  snap->args = args;
  snap->firstNew = klee::MemoryObject(0).id;
  auto t0 = std::chrono::steady_clock::now();
  snap->state = state.copy();
  fs.snapshotSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  snap->before = p.pending;
  snap->stamps = p.stamps; // shared: the path copies an object's stamps when it writes it
  if (checkConstrain.count(f) && mayAssume(*snap)) {
    ++constrainedCalls; // run, not skipped: its recovery could contradict the path
    return false;
  }
  ++snapshots;
  // Invariant: pending calls oldest first (seqs increase). The post-state of the youngest
  // covers the older ones' (analyses join it alone), and recoveries go oldest first.
  assert((p.pending.empty() || p.pending.back().snap->seq < snap->seq) && "pending skips oldest first");
  p.pending.push_back(Pending{snap, result});
  if (result)
    ++state.pluginWatch; // its uses are held until the call is recovered
  ++fs.snapshots;
  ++fs.bySite[line].first;
  ++chop::snapshotsStat();
  return true;
}

void ChopClient::callRuns(CallSite &c, const CallAnalysis &a) {
  if (!profiler || !c.f || c.f->isIntrinsic() || isRecovery(&c.state))
    return;
  if (c.f->isDeclaration()) {
    if (runsExternally(c.f->getName()))
      profiler->externalCall(c.state, c.ki);
    return;
  }
  if (endsCleanly(c.f->getName()))
    profiler->cleanEnd(c.state);
  profiler->callRuns(c, a, [&] { return pendingAnswers(c.state); });
}

std::uint64_t ChopClient::hugeObjectBytes() const {
  // A sixteenth of KLEE's cap (512 MB without one; 16 MB at least): large enough that no
  // real data structure here comes near, small enough that two copies stay under the cap.
  return std::max<std::uint64_t>(maxMemoryMB ? maxMemoryMB / 16 : 512, 16) << 20;
}

bool ChopClient::atMemoryCap() {
  if (!maxMemoryMB)
    return false;
  // mallinfo is O(free chunks), as KLEE's own check says: at most every 20 ms. Every
  // allocation of the process counts (snapshots, the Rust core's), as in KLEE's figure;
  // KLEE's deterministic allocator's mapped pages do not.
  auto now = std::chrono::steady_clock::now();
  if (now - lastMemoryCheck < std::chrono::milliseconds(20))
    return memoryCapped;
  lastMemoryCheck = now;
  memoryCapped = (klee::util::GetTotalMallocUsage() >> 20U) > maxMemoryMB;
  return memoryCapped;
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
  auto t0 = std::chrono::steady_clock::now();
  s.answer = host.analyze(*s.state, s.call, s.f, s.args, older, /*keepPost=*/true);
  stats[s.f->getName().str()].analysisSeconds +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<Answer> ChopClient::pendingAnswers(const klee::ExecutionState &state) {
  std::vector<Answer> out;
  PathState *p = paths.find(state);
  if (!p || host.wholeProgram())
    return out;
  for (Pending &q : p->pending) {
    analyse(*q.snap);
    out.push_back(q.snap->answer);
  }
  assert(std::is_sorted(p->pending.begin(), p->pending.end(),
                        [](const Pending &a, const Pending &b) { return a.snap->seq < b.snap->seq; }) &&
         "pending skips oldest first: the youngest's post-state covers the older ones'");
  return out;
}

bool ChopClient::ownFrameOnly(const klee::MemoryObject *mo) {
  if (!mo->isLocal || !mo->allocSite)
    return false;
  auto *alloca = dyn_cast<AllocaInst>(mo->allocSite);
  if (!alloca)
    return false;
  auto known = privateLocals.find(alloca);
  if (known != privateLocals.end())
    return known->second;
  // The address, and the pointers derived from it by casts and GEPs, are only loaded and
  // stored through (not stored, passed, compared or turned into an integer).
  bool owned = true;
  std::vector<const Value *> work{alloca};
  std::set<const Value *> seen{alloca};
  while (owned && !work.empty()) {
    const Value *v = work.back();
    work.pop_back();
    for (const User *u : v->users()) {
      if (isa<LoadInst>(u) || isa<DbgInfoIntrinsic>(u))
        continue;
      if (auto *st = dyn_cast<StoreInst>(u)) {
        if (st->getValueOperand() == v)
          owned = false; // the address itself is stored
        continue;
      }
      if (auto *ii = dyn_cast<IntrinsicInst>(u))
        if (ii->isLifetimeStartOrEnd())
          continue;
      if (isa<BitCastInst>(u) || isa<GetElementPtrInst>(u)) {
        if (seen.insert(u).second)
          work.push_back(u);
        continue;
      }
      owned = false;
    }
  }
  privateLocals.emplace(alloca, owned);
  return owned;
}

bool ChopClient::mayWrite(Snapshot &s, const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes,
                          bool known) {
  // A local whose address never leaves its function is written by that function's own
  // frame only, never by a call: no analysis needed (at -O0, most loads after a skip are
  // of such locals, and each would otherwise analyse the skipped call).
  if (ownFrameOnly(mo)) {
    ++privateLocalAnswers;
    return false;
  }
  analyse(s);
  if (!s.answer || !pspa::answer_ok(**s.answer))
    return true; // no answer: the call may write anything
  auto any = s.mayWriteAnyOf.find(mo->id);
  if (any == s.mayWriteAnyOf.end())
    any = s.mayWriteAnyOf
              .emplace(mo->id, pspa::answer_may_write(host.analysisEngine(), **s.answer, liveObject(mo, s.firstNew), 0,
                                                      0, false))
              .first;
  if (!any->second || !known)
    return any->second; // none of its bytes; or the whole object asked
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
  if (chopAccess(state, ki, mo, offset, bytes, isWrite))
    return true;
  if (profiler && profiler->watching(state))
    profiler->access(state, ki, mo, offset, bytes, isWrite, ownFrameOnly(mo));
  return false;
}

bool ChopClient::chopAccess(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                            klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite) {
  PathState *pp = paths.find(state);
  if (!pp)
    return false;
  PathState &p = *pp;
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
  // A local whose address never leaves its function: no pending call wrote or freed it.
  // Asked once per access, not once per pending call (asn1_delete_structure's skipped
  // _asn1_remove_node calls leave a thousand pending on a path: per call, the test ran
  // 13M times in a 7M-instruction run).
  if (ownFrameOnly(mo)) {
    ++privateLocalAnswers;
    if (isWrite)
      p.written(mo, ce ? off : 0, ce ? bytes : mo->size, chop::PathWrite);
    return false;
  }
  // The bytes' oldest write: they were all written since a pending call iff it is newer.
  unsigned since = ce && !isWrite ? p.minStamp(mo, off, bytes) : 0;
  // The oldest pending call that may have written these bytes, not written since.
  for (std::size_t i = 0; i < p.pending.size(); ++i) {
    Pending &q = p.pending[i];
    if (!q.snap->saw(mo))
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
      if (ce && since > q.snap->seq)
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
  // No pending call may write these bytes any more (those that may were recovered above):
  // at a symbolic offset, any byte of the object may be the one written.
  if (isWrite)
    p.written(mo, ce ? off : 0, ce ? bytes : mo->size, chop::PathWrite);
  return false;
}

bool ChopClient::recoverOneThatMayEnd(klee::ExecutionState &state, PathState &p, klee::KInstruction *ki) {
  for (std::size_t i = 0; i < p.pending.size(); ++i)
    if (mayEnd(*p.pending[i].snap)) {
      ++endRecoveries;
      recover(state, p, i, ki);
      state.pc = state.prevPC; // the call runs again after the recovery
      return true;
    }
  return false;
}

bool ChopClient::cleanEnd(klee::ExecutionState &state, PathState &p, klee::KInstruction *ki) {
  if (chop::skippedErrors() && recoverOneThatMayEnd(state, p, ki))
    return true;
  for (Pending &q : p.pending) {
    if (q.result)
      unwatch(state);
    ++stats[q.snap->f->getName().str()].dropped;
    ++droppedAtEnd;
  }
  p.pending.clear();
  p.effects.clear();
  return false;
}

bool ChopClient::declaredCall(klee::ExecutionState &state, klee::KInstruction *ki, Function *f,
                              std::vector<klee::ref<klee::Expr>> &args) {
  PathState *pp = paths.find(state);
  if (!pp || (pp->pending.empty() && !pp->recovery))
    return false;
  PathState &p = *pp;
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
  if (endsCleanly(name))
    return cleanEnd(state, p, ki);
  if (endingHandlers().count(name)) {
    // The path ends here (an error, or a jump away). A pending call that may itself end the path
    // (exit, abort, a failed assertion, as its analysis says) comes first in program
    // order: it is recovered before, so that the path reports what the program does
    // first, and never an error past a call that ended it. Then the handler runs again.
    return recoverOneThatMayEnd(state, p, ki);
  }
  if (!runsExternally(name))
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

bool ChopClient::beforeInstruction(klee::ExecutionState &state, klee::KInstruction *ki) {
  PathState *pp = paths.find(state);
  if (!pp)
    return false;
  PathState &p = *pp;
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
  if (profiler)
    profiler->afterReturn(state); // no-op on recovery states: the profile has no path there
  PathState *pp = paths.find(state);
  if (!pp)
    return;
  PathState &p = *pp;
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

void ChopClient::afterAlloc(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  if (mo->size >= hugeObjectBytes() && !isRecovery(&state))
    paths[state].holdsHuge = true;
  PathState *pp = paths.find(state);
  if (!pp || !pp->recovery)
    return;
  // The recovery allocates with the waiting path's allocator, so that its objects can join
  // the path; an object the path freed after the skip still lives in the recovery, and the
  // allocator may hand its address out again.
  std::shared_ptr<Recovery> rec = pp->recovery;
  klee::ObjectPair op;
  auto at = klee::ConstantExpr::create(mo->address, klee::Context::get().getPointerWidth());
  if (!rec->snap->state->addressSpace.resolveOne(at, op) || op.first == mo)
    return;
  fallBack(state, "allocated where a freed object of its snapshot lies");
}

bool ChopClient::beforeFree(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  if (chopFree(state, mo))
    return true;
  if (profiler)
    profiler->freed(state, mo);
  return false;
}

bool ChopClient::chopFree(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  PathState *pp = paths.find(state);
  if (!pp || pp->dead)
    return false;
  // A recovery frees an object of its snapshot that the waiting path has freed since
  // (with the allocator the recovery shares): in program order the call freed it first,
  // so the path's free was a double free, which only a run in that order reports.
  PathState &p = *pp;
  std::shared_ptr<Recovery> rec = p.recovery;
  if (rec && chainGone(*rec)) {
    // The path it serves has ended (KLEE's memory cap): the shared allocator is no
    // longer a path's, and the answer would go nowhere.
    endRecovery(state);
    return true;
  }
  if (rec && rec->snap->saw(mo) && !allocatedBelow(*rec, mo)) {
    fallBack(state, "freed an object the path freed after the skip");
    return true;
  }
  // A pending call that may have freed (models: free writes its object) or written the
  // object runs first: its free is older, and a double free is reported at the path's.
  for (std::size_t i = 0; i < p.pending.size(); ++i) {
    if (!p.pending[i].snap->saw(mo) || !mayWrite(*p.pending[i].snap, mo, 0, 0, false))
      continue;
    recover(state, p, i, state.prevPC, mo, 0, 0, false);
    return true;
  }
  return false;
}

void ChopClient::stateBranched(const klee::ExecutionState &parent, klee::ExecutionState &child) {
  if (profiler)
    profiler->branched(parent, child);
  PathState *copy = paths.branched(parent, child);
  if (copy && copy->recovery)
    ++copy->recovery->outstanding; // a fork inside the recovery: the path forks with it
}

void ChopClient::stateTerminated(klee::ExecutionState &state) {
  if (profiler)
    profiler->terminated(state);
  auto w = waiting.find(&state);
  if (w != waiting.end()) {
    // The run is ending while this path waits (KLEE ends every state).
    w->second->dependentGone = true;
    waiting.erase(w);
  }
  PathState *p = paths.find(state);
  if (!p)
    return;
  std::shared_ptr<Recovery> rec = p->recovery;
  paths.erase(state);
  if (!rec || &state == completing)
    return;
  // The recovery ended without returning (an error in the skipped call: KLEE reported it
  // with this state's inputs, which the waiting path shares).
  ++failedRecoveries;
  stats[rec->snap->f->getName().str()].recoveryInstructions +=
      state.steppedInstructions - rec->snap->state->steppedInstructions;
  released(rec);
}

} // namespace pspa_plugin
