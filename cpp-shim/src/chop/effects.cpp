// Recorded effects. A recovery of a younger skip starts from a snapshot that predates the
// older calls the path has recovered since; instead of running them again inside it (what
// made nested recoveries grow with the number of pending calls), their recorded writes,
// allocations and frees are replayed into it, each byte only over older writers' bytes.

#include "chop/chop.h"
#include "chop/options.h"

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

using namespace llvm;

namespace pspa_plugin {

void ChopClient::recordEffect(const klee::ExecutionState &r, const PathState &rp, PathState &tp,
                              const Snapshot &snap) {
  auto e = std::make_shared<chop::Effect>();
  e->seq = snap.seq;
  e->covers = rp.nested;
  e->covers.insert(snap.seq);
  for (auto &[mo, wrote] : rp.wrote) {
    const klee::ObjectState *ro = r.addressSpace.findObject(mo);
    if (!ro)
      continue;
    std::vector<chop::Effect::Byte> bytes;
    for (unsigned i = 0; i < wrote.size() && i < mo->size; ++i)
      if (wrote[i])
        bytes.push_back({i, ro->read8(i), wrote[i]});
    if (!bytes.empty())
      e->wrote.emplace_back(mo, std::move(bytes));
  }
  for (auto it = r.addressSpace.objects.begin(); it != r.addressSpace.objects.end(); ++it)
    if (!snap.saw(it->first) && !it->first->isLocal)
      e->allocated.emplace_back(it->first, new klee::ObjectState(*it->second.get()));
  for (auto it = snap.state->addressSpace.objects.begin(); it != snap.state->addressSpace.objects.end(); ++it)
    if (!r.addressSpace.findObject(it->first))
      e->freed.emplace_back(it->first);
  for (unsigned s : e->covers)
    tp.effects[s] = e;
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
    const chop::Effect &e = *it->second;
    for (const auto &[mref, bytes] : e.wrote) {
      const klee::MemoryObject *mo = mref.get();
      const klee::ObjectState *os = r.addressSpace.findObject(mo);
      if (!os)
        continue;
      // Written by the path after the call and before this snapshot: the snapshot's bytes.
      std::vector<unsigned> &seen = by[mo];
      seen.resize(mo->size, 0);
      klee::ObjectState *w = r.addressSpace.getWriteable(mo, os);
      for (const chop::Effect::Byte &x : bytes) {
        if (chop::newerIn(snap.stamps, b.snap->seq, mo, x.at) || x.at >= mo->size || seen[x.at] > x.by)
          continue;
        w->write(x.at, x.value);
        seen[x.at] = x.by;
        // The snapshot's bytes now, not the recovered call's writes: only the ordering rule.
        rp.newerThanPending(mo, x.at, 1, x.by);
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

} // namespace pspa_plugin
