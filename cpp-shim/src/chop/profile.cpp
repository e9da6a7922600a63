// Chopping's profile (profile.h): per function, what its calls cost and whether the path
// read what they may have written. Counted on ordinary paths only (the chop client does
// not forward recovery states' hooks here).

#include "chop/profile.h"
#include "chop/chop.h"

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
/// A function's first analyses fill the summary cache that its later calls reuse: their
/// time is not what a skip costs (chopping pays it once).
constexpr std::uint64_t ColdAnalyses = 4;

/// Counts a read made inside the calls `chain` (outermost first) in `fp.readInside`, keyed
/// `F:LINE>G:LINE` by the four innermost (pspa::skips parses it); past 16 keys, new chains
/// count under "..." (read by the caller).
void noteReadInside(FunctionProfile &fp, const std::vector<Site> &chain) {
  std::string key;
  for (std::size_t k = chain.size() > 4 ? chain.size() - 4 : 0; k < chain.size(); ++k)
    key += (key.empty() ? "" : ">") + chain[k].first->getName().str() + ":" + std::to_string(chain[k].second);
  if (fp.readInside.size() < 16 || fp.readInside.count(key))
    ++fp.readInside[key];
  else
    ++fp.readInside["..."];
}
} // namespace

Profiler::Profiler(Host &host, std::function<std::string(llvm::Function *)> refuse, unsigned sample, bool payingOnly)
    : host(host), refuse(std::move(refuse)), sample(sample), payingOnly(payingOnly),
      skipCost(pspa::skip_cost()), start(std::chrono::steady_clock::now()) {}

const std::string &Profiler::excluded(llvm::Function *f) {
  auto it = exclusions.find(f);
  if (it == exclusions.end())
    it = exclusions.emplace(f, refuse(f)).first;
  return it->second;
}

void Profiler::callRuns(CallSite &c, const CallAnalysis &given, const std::function<std::vector<Answer>()> &pending) {
  klee::ExecutionState &state = c.state;
  Path &p = paths[state];
  pop(state, p); // frames an unwinding left behind
  Site site{c.f, c.ki && c.ki->info ? c.ki->info->line : 0};
  FunctionProfile &fp = sites[site];
  ++fp.calls;
  ++profiledCalls;
  ++changes;
  if (!state.stack.empty())
    ++fp.callers[state.stack.back().kf->function];
  Frame fr{site, state.stack.size(), state.steppedInstructions, true, !c.ki->inst->use_empty(), nullptr, 0, ++pushes};
  for (const Frame &o : p.frames)
    fr.outermost &= o.site != site;
  if (fr.resultUsed)
    ++fp.resultUsed;
  // A used result recovers the call at its first use: nothing to watch, nothing to analyse.
  // The sample: the first `sample` calls, then every 16th up to four times as many, so
  // that later calls (other paths, other phases of the run) are seen too.
  else if ((fp.analysed < sample || (fp.calls % 16 == 0 && fp.analysed < 4 * sample)) &&
           (!payingOnly || mayPay(fp)) && excluded(c.f).empty()) {
    ++fp.analysed;
    ++analyses;
    if (given.analysed) {
      fr.answer = given.answer;
      fr.firstNew = given.firstNew;
    } else {
      fr.firstNew = klee::MemoryObject(0).id; // objects from here on did not exist at the call
      auto t0 = std::chrono::steady_clock::now();
      fr.answer = host.analyze(state, c.ki, c.f, c.args, pending(), /*keepPost=*/false);
      double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (fp.analysed > ColdAnalyses) {
        fp.analysisSeconds += t;
        ++fp.warmAnalyses;
      }
    }
    if (fr.answer && pspa::answer_ok(**fr.answer))
      fp.modLocations += pspa::answer_mod_size(host.analysisEngine(), **fr.answer);
    else {
      ++failedAnalyses;
      fr.answer = nullptr; // not watched: a failed answer may write anything, which says nothing
    }
  }
  p.frames.push_back(std::move(fr));
}

bool Profiler::mayPay(const FunctionProfile &fp) const {
  // Its calls so far fork, or cost more than a skip does (what returned of them).
  return fp.forks > 0 || static_cast<double>(fp.instructions + fp.pathInstructions) > skipCost * fp.calls;
}

void Profiler::pop(klee::ExecutionState &state, Path &p) {
  while (!p.frames.empty() && p.frames.back().depth >= state.stack.size()) {
    Frame fr = std::move(p.frames.back());
    p.frames.pop_back();
    FunctionProfile &fp = sites[fr.site];
    if (fr.outermost)
      fp.instructions += state.steppedInstructions - fr.entry;
    if (fr.resultUsed) {
      ++fp.watched;
      ++fp.read;
      ++fp.analysisNeeded; // recovered at the use
      ++changes;
    } else if (fr.answer) {
      if (p.watches.size() >= MaxWatches) {
        p.watches.erase(p.watches.begin());
        ++droppedWatches;
      }
      p.watches.push_back(Watch{fr.site, fr.answer, fr.firstNew, state.steppedInstructions, ++p.clock,
                                std::make_shared<WriteCache>(), pushes});
    }
  }
}

void Profiler::afterReturn(klee::ExecutionState &state) {
  if (Path *p = paths.find(state))
    pop(state, *p);
}

void Profiler::settle(Path &p, std::size_t i, bool read, std::uint64_t now, const klee::KInstruction *at) {
  Watch w = std::move(p.watches[i]);
  p.watches.erase(p.watches.begin() + i);
  FunctionProfile &fp = sites[w.site];
  ++fp.watched;
  ++changes;
  if (read || w.touched)
    ++fp.analysisNeeded;
  if (read) {
    ++fp.read;
    fp.readAfter += now - w.returnedAt;
    std::string place = at ? where(at) : "an external call or a free";
    if (fp.readAt.size() < 8 || fp.readAt.count(place))
      ++fp.readAt[place];
    std::vector<Site> after;
    for (const Frame &fr : p.frames)
      if (fr.seq > w.seq)
        after.push_back(fr.site);
    if (!after.empty())
      noteReadInside(fp, after);
  } else {
    ++fp.unread;
  }
  if (p.watches.empty())
    p.stamps.clear();
}

void Profiler::recovered(const Site &site, const std::vector<Site> &after) {
  FunctionProfile &fp = sites[site];
  ++fp.watched;
  ++fp.read;
  ++fp.analysisNeeded; // a recovered skip was analysed
  ++changes;
  if (!after.empty())
    noteReadInside(fp, after);
}

bool Profiler::mayWrite(Watch &w, const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes, bool known) {
  WriteCache &c = *w.mayWrite;
  auto it = c.anyOf.find(mo->id);
  if (it == c.anyOf.end())
    it = c.anyOf
             .emplace(mo->id, pspa::answer_may_write(host.analysisEngine(), **w.answer, liveObject(mo, w.firstNew),
                                                      0, 0, false))
             .first;
  if (!it->second || !known)
    return it->second;
  WriteCache::Bytes key{mo->id, off, bytes};
  auto r = c.ranges.find(key);
  if (r != c.ranges.end())
    return r->second;
  bool may = pspa::answer_may_write(host.analysisEngine(), **w.answer, liveObject(mo, w.firstNew), off, bytes, true);
  if (c.ranges.size() < WriteCache::MaxRanges)
    c.ranges.emplace(key, may);
  return may;
}

void Profiler::access(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
                      klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite, bool ownFrameOnly) {
  Path *pp = paths.find(state);
  if (!pp || pp->watches.empty())
    return;
  Path &p = *pp;
  auto *ce = llvm::dyn_cast<klee::ConstantExpr>(offset);
  std::uint64_t off = ce ? ce->getZExtValue() : 0;
  if (ownFrameOnly)
    return; // no call writes it, and reading it never recovers one
  const std::vector<unsigned> *st = p.stamps.find(mo->id);
  for (std::size_t i = 0; i < p.watches.size();) {
    Watch &w = p.watches[i];
    bool read = false;
    if (mo->id < w.firstNew) {
      w.touched = true;
      if (!isWrite) {
        // Bytes the path wrote after the return hide the call's: not a recovery.
        bool hidden = false;
        if (ce && st) {
          hidden = true;
          for (std::uint64_t b = off; b < off + bytes && hidden; ++b)
            hidden = b < st->size() && (*st)[b] >= w.stamp;
        }
        read = !hidden && mayWrite(w, mo, off, bytes, ce != nullptr);
      } else if (!ce) {
        read = mayWrite(w, mo, 0, 0, false); // which bytes it overwrites is not known
      }
    }
    // Inside a later call of the same site it is no reader (asked last: a frame walk).
    if (read && !inside(p, w.site))
      settle(p, i, true, state.steppedInstructions, ki);
    else
      ++i;
  }
  if (!isWrite || p.watches.empty() || mo->size > MaxStampedBytes)
    return;
  std::vector<unsigned> &slot = p.stamps.own(mo->id); // copied first if a fork shares it
  if (slot.empty())
    slot.resize(mo->size, 0);
  assert(slot.size() == mo->size && "stamps are per object id: one size");
  std::uint64_t from = ce ? off : 0, to = ce ? std::min<std::uint64_t>(off + bytes, mo->size) : mo->size;
  for (std::uint64_t b = from; b < to; ++b)
    slot[b] = p.clock;
}

void Profiler::freed(klee::ExecutionState &state, const klee::MemoryObject *mo) {
  Path *pp = paths.find(state);
  if (!pp)
    return;
  for (std::size_t i = 0; i < pp->watches.size();) {
    Watch &w = pp->watches[i];
    if (mo->id < w.firstNew && !inside(*pp, w.site) && mayWrite(w, mo, 0, 0, false))
      settle(*pp, i, true, state.steppedInstructions);
    else
      ++i;
  }
}

void Profiler::externalCall(klee::ExecutionState &state, klee::KInstruction *ki) {
  Path *pp = paths.find(state);
  if (!pp)
    return;
  for (std::size_t i = 0; i < pp->watches.size();)
    if (!inside(*pp, pp->watches[i].site))
      settle(*pp, i, true, state.steppedInstructions, ki);
    else
      ++i;
}

void Profiler::cleanEnd(klee::ExecutionState &state) {
  Path *pp = paths.find(state);
  while (pp && !pp->watches.empty())
    settle(*pp, 0, false, state.steppedInstructions);
}

bool Profiler::inside(const Path &p, const Site &s) {
  // With the site skipped, its later calls would not run: what they read recovers nothing.
  for (const Frame &fr : p.frames)
    if (fr.site == s)
      return true;
  return false;
}

void Profiler::branched(const klee::ExecutionState &parent, klee::ExecutionState &child) {
  if (!paths.find(parent))
    return;
  Path *c = paths.branched(parent, child);
  const Path *pp = paths.find(parent); // after the insert, which may rehash
  // Each function with a live activation forked once (callees included); the child's
  // instructions count from here, and its whole run is owed to those forks.
  std::vector<Site> seen;
  for (const Frame &fr : pp->frames) {
    if (fr.depth >= parent.stack.size() || std::find(seen.begin(), seen.end(), fr.site) != seen.end())
      continue;
    seen.push_back(fr.site);
    ++sites[fr.site].forks;
    ++changes;
    bool born = false;
    for (auto &[g, at] : c->lineage)
      born |= g == fr.site;
    if (!born)
      c->lineage.emplace_back(fr.site, child.steppedInstructions);
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
      sites[fr.site].instructions += state.steppedInstructions - fr.entry;
  for (auto &[site, at] : p.lineage)
    sites[site].pathInstructions += state.steppedInstructions - at;
  while (!p.watches.empty())
    settle(p, 0, false, state.steppedInstructions);
  paths.erase(state);
}

std::uint64_t Profiler::runInstructions() const { return klee::stats::instructions; }

double Profiler::runSeconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

pspa::ProfileRow Profiler::row(const Site &site) {
  FunctionProfile &fp = sites[site];
  llvm::Function *f = site.first;
  std::string callers;
  for (auto &[g, n] : fp.callers)
    callers += (callers.empty() ? "" : " ") + g->getName().str() + ":" + std::to_string(n);
  std::string readAt, readInside;
  for (auto &[at, n] : fp.readAt)
    readAt += (readAt.empty() ? "" : " ") + at + "x" + std::to_string(n);
  for (auto &[in, n] : fp.readInside)
    if (in != "...")
      readInside += (readInside.empty() ? "" : " ") + in + "x" + std::to_string(n);
  return pspa::ProfileRow{rust::String::lossy(f->getName().str()),
                          site.second,
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
                          fp.warmAnalyses,
                          fp.analysisNeeded,
                          rust::String::lossy(fp.stopped.empty() ? excluded(f) : fp.stopped),
                          rust::String::lossy(callers),
                          rust::String::lossy(readAt),
                          rust::String::lossy(readInside)};
}

pspa::ProfileRow Profiler::functionRow(llvm::Function *f) {
  pspa::ProfileRow sum{rust::String::lossy(f->getName().str())};
  sum.line = 0;
  for (auto it = sites.lower_bound(Site{f, 0}); it != sites.end() && it->first.first == f; ++it) {
    pspa::ProfileRow r = row(it->first);
    sum.calls += r.calls;
    sum.result_used += r.result_used;
    sum.instructions += r.instructions;
    sum.forks += r.forks;
    sum.path_instructions += r.path_instructions;
    sum.analysed += r.analysed;
    sum.mod_locations += r.mod_locations;
    sum.watched += r.watched;
    sum.read += r.read;
    sum.unread += r.unread;
    sum.analysis_s += r.analysis_s;
    sum.warm_analyses += r.warm_analyses;
    sum.analysis_needed += r.analysis_needed;
  }
  return sum;
}

rust::Vec<pspa::ProfileRow> Profiler::rows() {
  rust::Vec<pspa::ProfileRow> out;
  for (auto &[site, fp] : sites)
    if (fp.calls)
      out.push_back(row(site));
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
