// The searcher chopping wraps around KLEE's: paths waiting for a recovery are paused (the
// base searcher never sees them), and recovery states run first (--pspa-chop-searcher).
#pragma once

#include "chop/chop.h"
#include "chop/options.h"

#include "lib/Core/Searcher.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>
#include <vector>

namespace pspa_plugin::chop {

/// Pauses states (a path waiting for a recovery) and, if asked, runs recovery states first.
class Searcher : public klee::Searcher {
public:
  Searcher(klee::Searcher *base, ChopClient &client) : base(base), client(client) {}
  ~Searcher() override { delete base; }

  klee::ExecutionState &selectState() override {
    if (recoveriesFirst() && !recoveries.empty())
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
    os << "ChopSearcher (recovery states " << (recoveriesFirst() ? "first" : "as any") << ") over ";
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

} // namespace pspa_plugin::chop
