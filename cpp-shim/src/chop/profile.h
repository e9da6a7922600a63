// What skipping each function would have saved and cost, measured on a run that skips it
// not (chop-profile.csv; --pspa-chop-profile, and --skip-functions=auto's online choice).
// Per function: calls, the instructions inside them and the forks inside them (callees
// included), the instructions of the paths those forks made, and, for a sample of calls,
// their mod-set (analysed at the call, as chopping would) watched after the return: the
// path's first load of bytes it may have written (not overwritten since), free of an
// object it may write, write at a symbolic offset into one, or external call, is what
// would have recovered the call. The ranking is the core's (pspa::skips), through the
// bridge.
#pragma once

#include "clients.h"
#include "stamps.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "llvm/IR/Function.h"

namespace pspa_plugin::chop {

/// A call site: the function called and the source line of the call (0: unknown). The
/// profile counts per site, because one function's calls from two places can differ
/// (libtasn1's asn1_delete_structure: read at once inside the decoder, never in the driver).
using Site = std::pair<llvm::Function *, unsigned>;
/// The line of a Site that stands for every call of its function (--skip-functions=auto's
/// whole-function choice).
constexpr unsigned EveryCall = ~0u;
/// `F`, or `F:LINE`, as --skip-functions takes it.
inline std::string siteName(const Site &s) {
  return s.first->getName().str() + (s.second && s.second != EveryCall ? ":" + std::to_string(s.second) : "");
}

/// A site's counters (the fields of pspa::skips::FunctionProfile).
struct FunctionProfile {
  std::uint64_t calls = 0, resultUsed = 0, instructions = 0, forks = 0, pathInstructions = 0, analysed = 0,
                modLocations = 0, watched = 0, read = 0, unread = 0, readAfter = 0, warmAnalyses = 0,
                analysisNeeded = 0;
  double analysisSeconds = 0;
  std::map<llvm::Function *, std::uint64_t> callers;
  std::map<std::string, std::uint64_t> readAt; // the first eight places, counted
  /// Reads made inside calls that began after the return, by the sites of those calls on
  /// the stack (`A:1>B:2`, outermost first, at most the four innermost): skipping any of
  /// them too would have skipped the read.
  std::map<std::string, std::uint64_t> readInside;
  /// Why skipping it stopped (online), "" while it did not.
  std::string stopped;
};

/// What a watched call may write, as asked (see Watch::mayWrite).
struct WriteCache {
  struct Bytes {
    std::uint64_t id, offset, size;
    bool operator==(const Bytes &o) const { return id == o.id && offset == o.offset && size == o.size; }
  };
  struct BytesHash {
    std::size_t operator()(const Bytes &b) const {
      return std::hash<std::uint64_t>()(b.id * 0x9E3779B97F4A7C15ull ^ (b.offset << 20) ^ b.size);
    }
  };
  /// Beyond this many byte ranges (a scan of a large buffer) they are asked each time.
  static constexpr std::size_t MaxRanges = 4096;
  std::unordered_map<std::uint64_t, bool> anyOf;
  std::unordered_map<Bytes, bool, BytesHash> ranges;
};

class Profiler {
public:
  /// `refuse(f)`: why `f` can never be skipped ("" if it can), asked once per function.
  /// `sample`: calls analysed per function; `payingOnly`: analyse only functions whose
  /// calls so far may pay back a skip (`mayPay`: online, where analyses cost the run's
  /// time).
  Profiler(Host &host, std::function<std::string(llvm::Function *)> refuse, unsigned sample, bool payingOnly);

  /// A call of defined `f` runs on an ordinary path (not a recovery); `pending`: the
  /// skipped calls' answers pending on the path (an analysis joins them).
  void callRuns(CallSite &c, const CallAnalysis &given, const std::function<std::vector<Answer>()> &pending);
  /// Whether the path watches a call's effects (only then do its accesses matter here).
  bool watching(const klee::ExecutionState &state) const {
    const Path *p = paths.find(state);
    return p && !p->watches.empty();
  }
  /// A declared function KLEE runs externally: it reads whatever the watched calls wrote.
  void externalCall(klee::ExecutionState &state, klee::KInstruction *ki);
  /// The path ends cleanly here (exit): nothing after reads what the watched calls wrote
  /// (chopping drops its pending calls there), whatever exit's own code reads.
  void cleanEnd(klee::ExecutionState &state);
  void afterReturn(klee::ExecutionState &state);
  /// A load or store that happens (no client held it); `ownFrameOnly`: a local no call
  /// can write.
  void access(klee::ExecutionState &state, klee::KInstruction *ki, const klee::MemoryObject *mo,
              klee::ref<klee::Expr> offset, unsigned bytes, bool isWrite, bool ownFrameOnly);
  void freed(klee::ExecutionState &state, const klee::MemoryObject *mo);
  /// A skipped call of `site` was recovered, by a read inside the calls `after` (begun
  /// after it, outermost first; none: the caller's own read). Counted as a followed call
  /// whose effects were read: once a site is skipped its calls are not followed, and its
  /// recoveries are what the ranking can learn from (reads inside a call it has not chosen
  /// yet make that call a partner worth skipping with it).
  void recovered(const Site &site, const std::vector<Site> &after);
  void branched(const klee::ExecutionState &parent, klee::ExecutionState &child);
  void terminated(klee::ExecutionState &state);

  /// The rows so far, as the core takes them.
  rust::Vec<pspa::ProfileRow> rows();
  /// The row of one site.
  pspa::ProfileRow row(const Site &s);
  /// `f`'s sites summed (what skipping every call of f is weighed on).
  pspa::ProfileRow functionRow(llvm::Function *f);
  /// Instructions run so far and seconds since the run began: the rate the ranking
  /// converts analysis seconds at.
  std::uint64_t runInstructions() const;
  double runSeconds() const;
  /// Writes chop-profile.csv.
  void write(klee::InterpreterHandler &handler);
  /// Counters for pspa-stats.json and the done line.
  std::uint64_t profiledCalls = 0, analyses = 0, failedAnalyses = 0, droppedWatches = 0, unfinishedPaths = 0;
  /// Bumped whenever a counter the ranking reads changes.
  std::uint64_t changes = 0;
  FunctionProfile &of(const Site &s) { return sites[s]; }
  /// The profiled sites of `f`.
  std::vector<std::pair<Site, FunctionProfile *>> sitesOf(llvm::Function *f) {
    std::vector<std::pair<Site, FunctionProfile *>> out;
    for (auto it = sites.lower_bound(Site{f, 0}); it != sites.end() && it->first.first == f; ++it)
      out.emplace_back(it->first, &it->second);
    return out;
  }
  const std::string &excluded(llvm::Function *f);

private:
  struct Frame {
    Site site;
    std::size_t depth; // the caller's stack size: live while the stack is deeper
    std::uint64_t entry; // steppedInstructions when counting began on this path
    bool outermost;      // no other activation of f below it
    bool resultUsed;
    Answer answer;       // analysed: watched after the return
    std::uint64_t firstNew;
    std::uint64_t seq = 0; // pushes numbered, run-wide: which frames began after a watch
  };
  struct Watch {
    Site site;
    Answer answer;
    std::uint64_t firstNew, returnedAt;
    unsigned stamp; // writes stamped at least this came after the return
    /// answer_may_write, asked once per watch: for a whole object (by id), and for the
    /// bytes of an access (by id, offset and size; the path reads a node's fields again
    /// and again, and each answer was a call into the core: a tenth of libtasn1's
    /// `--skip-functions=auto` run). Shared by the forks of the path.
    std::shared_ptr<WriteCache> mayWrite;
    std::uint64_t seq = 0; // frames pushed after it have larger seqs
    /// The path touched an object that existed at the call: a skip of it would have been
    /// analysed then (chopping analyses a skipped call at such an access, not before).
    /// Accesses inside later calls of the same site count too (no frame walk per access):
    /// that errs towards charging the analysis.
    bool touched = false;
  };
  struct Path {
    std::vector<Frame> frames;
    /// Functions whose forks made this path, with its instructions then.
    std::vector<std::pair<Site, std::uint64_t>> lineage;
    std::vector<Watch> watches;
    /// Per object, the stamp of each byte's last write (0: before any watch), kept while
    /// the path watches something; shared with forks until one writes.
    /// By object id, not address: a freed object's address comes back for another object.
    StampTable<std::uint64_t> stamps;
    unsigned clock = 0;
  };
  void pop(klee::ExecutionState &state, Path &p);
  /// Whether the path is inside a call from site `s` (an access there is not the watched
  /// call's reader: skipping the site would skip it too).
  static bool inside(const Path &p, const Site &s);
  bool mayPay(const FunctionProfile &fp) const;
  void settle(Path &p, std::size_t i, bool read, std::uint64_t now, const klee::KInstruction *at = nullptr);
  bool mayWrite(Watch &w, const klee::MemoryObject *mo, std::uint64_t off, std::uint64_t bytes, bool known);

  Host &host;
  std::function<std::string(llvm::Function *)> refuse;
  unsigned sample;
  bool payingOnly;
  double skipCost;
  PerState<Path> paths;
  std::map<Site, FunctionProfile> sites;
  std::map<llvm::Function *, std::string> exclusions;
  std::chrono::steady_clock::time_point start;
  std::uint64_t pushes = 0;
};

} // namespace pspa_plugin::chop
