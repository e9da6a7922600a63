// Chopping's profile (profile.h): per function, what its calls cost and whether the path
// read what they may have written. Counted on ordinary paths only (the chop client does
// not forward recovery states' hooks here).

#include "chop/profile.h"

#include "klee/Core/Interpreter.h"
#include "klee/Module/KInstruction.h"
#include "klee/Module/KModule.h"
#include "klee/Statistics/Statistics.h"

#include "lib/Core/CoreStats.h"
#include "lib/Core/ExecutionState.h"
#include "lib/Core/Memory.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cassert>

namespace pspa_plugin::chop {

namespace {
/// Watches a path keeps at once; the oldest goes first (counted): a path that calls a
/// sampled function in a loop would otherwise test every load against each call.
constexpr std::size_t MaxWatches = 16;
/// Objects larger than this get no per-byte stamps: a read of them counts as reading what
/// a watched call wrote even if the path overwrote it (a recovery is then over-counted,
/// never missed).
constexpr std::uint64_t MaxStampedBytes = 1 << 20;
} // namespace

Profiler::Profiler(Host &host, std::function<std::string(llvm::Function *)> refuse, unsigned sample, bool forkedOnly)
    : host(host), refuse(std::move(refuse)), sample(sample), forkedOnly(forkedOnly),
      start(std::chrono::steady_clock::now()) {}

const std::string &Profiler::excluded(llvm::Function *f) {
  FunctionProfile &fp = functions[f];
  if (!fp.judged) {
    fp.judged = true;
    fp.excluded = refuse(f);
  }
  return fp.excluded;
}

void Profiler::callRuns(CallSite &c, const CallAnalysis &given, const std::function<std::vector<Answer>()> &pending) {
  klee::ExecutionState &state = c.state;
  Path &p = paths[state];
  pop(state, p); // frames an unwinding left behind
  FunctionProfile &fp = functions[c.f];
  ++fp.calls;
  ++profiledCalls;
  ++changes;
  if (!state.stack.empty())
    ++fp.callers[state.stack.back().kf->function];
  Frame fr{c.f, state.stack.size(), state.steppedInstructions, true, !c.ki->inst->use_empty(), nullptr, 0};
  for (const Frame &o : p.frames)
    fr.outermost &= o.f != c.f;
  if (fr.resultUsed)
    ++fp.resultUsed;
  // A used result recovers the call at its first use: nothing to watch, nothing to analyse.
  else if (fp.analysed < sample && (!forkedOnly || fp.forks > 0) && excluded(c.f).empty()) {
    ++fp.analysed;
    ++analyses;
    if (given.analysed) {
      fr.answer = given.answer;
      fr.firstNew = given.firstNew;
    } else {
      fr.firstNew = klee::MemoryObject(0).id; // objects from here on did not exist at the call
      auto t0 = std::chrono::steady_clock::now();
      fr.answer = host.analyze(state, c.ki, c.f, c.args, pending(), /*keepPost=*/false);
      fp.analysisSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    if (fr.answer && pspa::answer_ok(**fr.answer))
      fp.modLocations += pspa::answer_mod_size(**fr.answer);
    else {
      ++failedAnalyses;
      fr.answer = nullptr; // not watched: a failed answer may write anything, which says nothing
    }
  }
  p.frames.push_back(std::move(fr));
}

void Profiler::pop(klee::ExecutionState &state, Path &p) {
  while (!p.frames.empty() && p.frames.back().depth >= state.stack.size()) {
    Frame fr = std::move(p.frames.back());
    p.frames.pop_back();
    FunctionProfile &fp = functions[fr.f];
    if (fr.outermost)
      fp.instructions += state.steppedInstructions - fr.entry;
    if (fr.resultUsed) {
      ++fp.watched;
      ++fp.read;
      ++changes;
    } else if (fr.answer) {
      if (p.watches.size() >= MaxWatches) {
        p.watches.erase(p.watches.begin());
        ++droppedWatches;
      }
      p.watches.push_back(Watch{fr.f, fr.answer, fr.firstNew, state.steppedInstructions, ++p.clock,
                                std::make_shared<std::unordered_map<std::uint64_t, bool>>()});
    }
  }
}

void Profiler::afterReturn(klee::ExecutionState &state) {
  if (Path *p = paths.find(state))
    pop(state, *p);
}

void Profiler::settle(Path &p, std::size_t i, bool read, std::uint64_t now) {
  Watch w = std::move(p.watches[i]);
  p.watches.erase(p.watches.begin() + i);
  FunctionProfile &fp = functions[w.f];
  ++fp.watched;
  ++changes;
  if (read) {
    ++fp.read;
    fp.readAfter += now - w.returnedAt;
  } else {
    ++fp.unread;
  }
  if (p.watches.empty())
    p.stamps.clear();
}

bool Profiler::mayWrite(Watch &w, const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes, bool known) {
  auto it = w.anyOf->find(mo->id);
  if (it == w.anyOf->end())
    it = w.anyOf
             ->emplace(mo->id, pspa::answer_may_write(host.analysisEngine(), **w.answer, liveObject(mo, w.firstNew),
                                                      0, 0, false))
             .first;
  if (!it->second || !known)
    return it->second;
  return pspa::answer_may_write(host.analysisEngine(), **w.answer, liveObject(mo, w.firstNew), off, bytes, true);
}

void Profiler::access(klee::ExecutionState &state, const klee::MemoryObject *mo, klee::ref<klee::Expr> offset,
                      unsigned bytes, bool isWrite, bool ownFrameOnly) {
  Path *pp = paths.find(state);
  if (!pp || pp->watches.empty())
    return;
  Path &p = *pp;
  auto *ce = llvm::dyn_cast<klee::ConstantExpr>(offset);
  std::uint64_t off = ce ? ce->getZExtValue() : 0;
  if (ownFrameOnly)
    return; // no call writes it, and reading it never recovers one
  auto st = p.stamps.find(mo);
  for (std::size_t i = 0; i < p.watches.size();) {
    Watch &w = p.watches[i];
    bool read = false;
    if (mo->id < w.firstNew && !inside(p, w.f)) {
      if (!isWrite) {
        // Bytes the path wrote after the return hide the call's: not a recovery.
        bool hidden = false;
        if (ce && st != p.stamps.end()) {
          hidden = true;
          for (std::uint64_t b = off; b < off + bytes && hidden; ++b)
            hidden = b < st->second->size() && (*st->second)[b] >= w.stamp;
        }
        read = !hidden && mayWrite(w, mo, off, bytes, ce != nullptr);
      } else if (!ce) {
        read = mayWrite(w, mo, 0, 0, false); // which bytes it overwrites is not known
      }
    }
    if (read)
      settle(p, i, true, state.steppedInstructions);
    else
      ++i;
  }
  if (!isWrite || p.watches.empty() || mo->size > MaxStampedBytes)
    return;
  std::shared_ptr<std::vector<unsigned>> &slot = p.stamps[mo];
  if (!slot)
    slot = std::make_shared<std::vector<unsigned>>(mo->size, 0);
  else if (slot.use_count() > 1)
    slot = std::make_shared<std::vector<unsigned>>(*slot); // shared with a fork: copy first
  std::uint64_t from = ce ? off : 0, to = ce ? std::min<std::uint64_t>(off + bytes, mo->size) : mo->size;
  for (std::uint64_t b = from; b < to; ++b)
    (*slot)[b] = p.clock;
}

void Profiler::freed(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  Path *pp = paths.find(state);
  if (!pp)
    return;
  for (std::size_t i = 0; i < pp->watches.size();) {
    Watch &w = pp->watches[i];
    if (mo->id < w.firstNew && !inside(*pp, w.f) && mayWrite(w, mo, 0, 0, false))
      settle(*pp, i, true, state.steppedInstructions);
    else
      ++i;
  }
}

void Profiler::externalCall(klee::ExecutionState &state) {
  Path *pp = paths.find(state);
  if (!pp)
    return;
  for (std::size_t i = 0; i < pp->watches.size();)
    if (!inside(*pp, pp->watches[i].f))
      settle(*pp, i, true, state.steppedInstructions);
    else
      ++i;
}

bool Profiler::inside(const Path &p, llvm::Function *f) {
  // With f skipped, its later calls would not run: what they read recovers nothing.
  for (const Frame &fr : p.frames)
    if (fr.f == f)
      return true;
  return false;
}

void Profiler::branched(const klee::ExecutionState &parent, klee::ExecutionState &child) {
  const Path *pp = paths.find(parent);
  if (!pp)
    return;
  Path *c = paths.branched(parent, child);
  // Each function with a live activation forked once (callees included); the child's
  // instructions count from here, and its whole run is owed to those forks.
  std::vector<llvm::Function *> seen;
  for (const Frame &fr : pp->frames) {
    if (fr.depth >= parent.stack.size() || std::find(seen.begin(), seen.end(), fr.f) != seen.end())
      continue;
    seen.push_back(fr.f);
    ++functions[fr.f].forks;
    ++changes;
    bool born = false;
    for (auto &[g, at] : c->lineage)
      born |= g == fr.f;
    if (!born)
      c->lineage.emplace_back(fr.f, child.steppedInstructions);
  }
  // The child's counters start here: what it shares with its parent, the parent counts.
  for (Frame &fr : c->frames)
    fr.entry = child.steppedInstructions;
  for (auto &[g, at] : c->lineage)
    at = child.steppedInstructions;
}

void Profiler::terminated(klee::ExecutionState &state) {
  Path *pp = paths.find(state);
  if (!pp)
    return;
  Path &p = *pp;
  for (const Frame &fr : p.frames)
    if (fr.outermost)
      functions[fr.f].instructions += state.steppedInstructions - fr.entry;
  for (auto &[f, at] : p.lineage)
    functions[f].pathInstructions += state.steppedInstructions - at;
  while (!p.watches.empty())
    settle(p, 0, false, state.steppedInstructions);
  paths.erase(state);
}

std::uint64_t Profiler::runInstructions() const { return klee::stats::instructions; }

double Profiler::runSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

pspa::ProfileRow Profiler::row(llvm::Function *f) {
  FunctionProfile &fp = functions[f];
  std::string callers;
  for (auto &[g, n] : fp.callers)
    callers += (callers.empty() ? "" : " ") + g->getName().str() + ":" + std::to_string(n);
  return pspa::ProfileRow{rust::String::lossy(f->getName().str()),
                          fp.calls,
                          fp.resultUsed,
                          fp.instructions,
                          fp.forks,
                          fp.pathInstructions,
                          fp.analysed,
                          fp.modLocations,
                          fp.watched,
                          fp.read,
                          fp.read ? static_cast<double>(fp.readAfter) / fp.read : 0.0,
                          fp.unread,
                          fp.analysisSeconds,
                          rust::String::lossy(excluded(f)),
                          rust::String::lossy(callers)};
}

rust::Vec<pspa::ProfileRow> Profiler::rows() {
  rust::Vec<pspa::ProfileRow> out;
  for (auto &[f, fp] : functions)
    if (fp.calls)
      out.push_back(row(f));
  return out;
}

void Profiler::write(klee::InterpreterHandler &handler) {
  // KLEE ends every state (terminateState) before the run finishes; states the plugin
  // made and KLEE never ran have no profile. What is left was not counted to its end.
  unfinishedPaths = static_cast<std::uint64_t>(std::distance(paths.begin(), paths.end()));
  auto out = handler.openOutputFile("chop-profile.csv");
  if (!out)
    return;
  rust::Vec<pspa::ProfileRow> r = rows();
  *out << std::string(pspa::profile_csv(rust::Slice<const pspa::ProfileRow>(r.data(), r.size()), runInstructions(),
                                        runSeconds()));
}

} // namespace pspa_plugin::chop
