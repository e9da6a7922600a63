// A recovery's life. A path waits while a recovery state runs its skipped call again from
// the snapshot; when the call returns (on each path of it), the waiting path goes on with
// the call's writes, allocations and frees, except the bytes it wrote itself since
// (PathState::written); an error inside the call ends the recovery and, once every path
// of it has ended so, the waiting path too. What the mechanism cannot finish falls back to
// running the path on from the snapshot without the skip.

#include "chop/chop.h"
#include "chop/options.h"
#include "chop/searcher.h"

#include "klee/Module/Cell.h"
#include "klee/Module/KInstruction.h"
#include "klee/Statistics/Statistic.h"
#include "klee/Support/ErrorHandling.h"

#include "lib/Core/ExecutionState.h"
#include "lib/Core/Executor.h"
#include "lib/Core/Memory.h"

#include "llvm/IR/Function.h"

#include <algorithm>
#include <cassert>
#include <set>

using namespace llvm;
using pspa_plugin::chop::unwatch;

namespace pspa_plugin {

void ChopClient::recover(klee::ExecutionState &state, PathState &p, std::size_t i, klee::KInstruction *ki,
                         const klee::MemoryObject *trigger, std::uint64_t off, unsigned bytes, bool known) {
  std::shared_ptr<Snapshot> snap = p.pending[i].snap;
  chop::FunctionStats &fs = stats[snap->f->getName().str()];
  ++fs.recoveries;
  ++fs.bySite[snap->call && snap->call->info ? snap->call->info->line : 0].second;
  if (profiler && snap->state) {
    // The calls that began after the skipped one and hold the read (their sites, outermost
    // first): skipping one of them would have skipped the read. The profile learns from
    // them (reads inside later calls), and --skip-functions=auto's stop rule asks them.
    const auto &then = snap->state->stack;
    std::size_t same = 0;
    while (same < then.size() && same < state.stack.size() && then[same].kf == state.stack[same].kf &&
           static_cast<klee::KInstruction *>(then[same].caller) == static_cast<klee::KInstruction *>(state.stack[same].caller))
      ++same;
    unsigned line = snap->call && snap->call->info ? snap->call->info->line : 0;
    std::vector<chop::Site> after;
    std::set<std::tuple<unsigned, const llvm::Function *, unsigned>> held;
    for (std::size_t k = same; k < state.stack.size(); ++k) {
      const klee::StackFrame &fr = state.stack[k];
      unsigned from = fr.caller && fr.caller->info ? fr.caller->info->line : 0;
      after.push_back({fr.kf->function, from});
      for (unsigned l : {line, ~0u})
        for (unsigned c : {from, ~0u})
          held.insert({l, fr.kf->function, c});
    }
    for (const auto &k : held)
      ++fs.recoveredInside[k];
    profiler->recovered({snap->f, line}, after);
  }
  std::string at = chop::where(ki);
  if (fs.triggers.size() < 8 || fs.triggers.count(at))
    ++fs.triggers[at]; // the first eight load locations, counted
  ++chop::recoveriesStat();
  ++recoveries;
  // The call again, from the snapshot, with the path's heap allocator so that its new
  // objects do not overlap the path's. Its stack allocator stays the snapshot's: the
  // frames are the snapshot's, and KLEE frees their locals when a state ends.
  PathState rp;
  rp.pending = snap->before;
  rp.stamps = snap->stamps;
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
  klee::ExecutionState *r = restartFrom(*snap, state, std::move(rp));
  r->heapAllocator = state.heapAllocator;
  r->coveredNew = false;
  if (chop::replayEffects()) {
    PathState &mine = paths[*r];
    mine.effects = p.effects; // for the calls recovered inside this recovery
    replayEffects(p, *snap, *r, mine);
  }
  searcher->pause(state);
}

klee::ExecutionState *ChopClient::restartFrom(const Snapshot &snap, klee::ExecutionState &path, PathState data) {
  // Under the path's constraints (a superset of the snapshot's), naming the path's
  // symbolic arrays.
  klee::ExecutionState *s = snap.state->copy();
  s->constraints = path.constraints;
  s->symbolics = path.symbolics;
  s->arrayNames = path.arrayNames;
  s->pc = s->prevPC; // the call instruction
  paths[*s] = std::move(data);
  host.kleeExecutor().addPluginState(path, s);
  return s;
}

void ChopClient::complete(klee::ExecutionState &r, PathState &rp) {
  std::shared_ptr<Recovery> rec = rp.recovery;
  klee::ExecutionState *d = rec->dependent;
  klee::Executor &ex = host.kleeExecutor();
  klee::ExecutionState *t;
  assert(rec->outstanding > 0 && "a recovery completes at most once per path of it");
  stats[rec->snap->f->getName().str()].recoveryInstructions +=
      r.steppedInstructions - rec->snap->state->steppedInstructions;
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
    apply(r, rp, *t, paths[*t], *rec->snap);
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
    klee::ObjectState *w = t.addressSpace.getWriteable(mo, to);
    for (std::size_t i = 0; i < wrote.size() && i < mo->size; ++i) {
      unsigned by = wrote[i];
      if (!by || (self && tp.newer(*self, mo, i)))
        continue;
      w->write(i, ro->read8(i));
      // Held by the call that wrote it (the recovered call, or an older one recovered
      // inside it): a pending skip between a nested call and this one writes after it.
      tp.written(mo, i, 1, by);
    }
  }
  // Objects the call allocated and did not free; objects it freed.
  for (auto it = r.addressSpace.objects.begin(); it != r.addressSpace.objects.end(); ++it) {
    const klee::MemoryObject *mo = it->first;
    if (!snap.saw(mo) && !mo->isLocal && !t.addressSpace.findObject(mo))
      t.addressSpace.bindObject(mo, new klee::ObjectState(*it->second.get()));
  }
  for (auto it = snap.state->addressSpace.objects.begin(); it != snap.state->addressSpace.objects.end(); ++it) {
    const klee::MemoryObject *mo = it->first;
    if (r.addressSpace.findObject(mo) || !t.addressSpace.findObject(mo))
      continue;
    // The path wrote it after the skip: in program order, a write after the free. A
    // write into an object in the call's may-free set recovers the call first, so this
    // counts what the may-free set missed (expected 0).
    if (self && tp.anyNewer(*self, mo) && writesAfterFree++ == 0)
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
  if (chop::replayEffects())
    recordEffect(r, rp, tp, snap);
  tp.pending.erase(std::remove_if(tp.pending.begin(), tp.pending.end(), done), tp.pending.end());
  if (chop::replayEffects())
    tp.dropUnneededEffects();
  tp.dropStampsIfIdle();
}

template <typename Pred> bool ChopClient::anyDown(const Recovery &rec, Pred pred) {
  // The chain of waiting paths: a recovery's dependent may be a recovery too, down to a
  // path KLEE runs.
  for (const Recovery *r = &rec;;) {
    if (pred(*r))
      return true;
    if (r->dependentGone)
      return false;
    const PathState *dp = paths.find(*r->dependent);
    if (!dp || !dp->recovery)
      return false;
    r = dp->recovery.get();
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
  std::shared_ptr<Recovery> rec = paths[state].recovery;
  if (fallbacks++ == 0)
    klee::klee_warning("pspa chop: a recovery of %s %s; that path runs on from the snapshot without skipping "
                       "the call (further cases only counted)",
                       rec->snap->f->getName().str().c_str(), why);
  PathState fp;
  fp.pending = rec->snap->before;
  fp.stamps = rec->snap->stamps;
  fp.runCall = true;
  restartFrom(*rec->snap, state, std::move(fp));
  endRecovery(state);
}

void ChopClient::endRecovery(klee::ExecutionState &r) {
  std::shared_ptr<Recovery> rec = paths.find(r)->recovery;
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
    if (PathState *dp = paths.find(*d))
      dp->dead = true;
    ++d->pluginWatch; // discarded at its next instruction, before anything forks it
    searcher->resume(*d);
  }
}

} // namespace pspa_plugin
