// The last answer of each analysed function, and whether a state still holds what that
// analysis read: then the call gets the answer without reading the state again.
//
// An on-demand analysis is a function of what its view gave the core: the arguments, the
// objects it met (site, size, type) and the contents it read. A later state that has the
// same arguments, the same objects at the same addresses with the same types, the same
// bytes in the objects read, and no object at any address those bytes held that was no
// object's then (a stale pointer that a new object would make live), gives the same
// answer, whichever path it is on: contents are compared, not states. Only analyses that
// read concrete bytes alone are kept (a symbolic address's targets depend on the path's
// constraints), with no pending skipped call on the path (their post-states join the
// state) and no post-state kept.
#ifndef PSPA_LAST_ANSWERS_H
#define PSPA_LAST_ANSWERS_H

#include "clients.h"
#include "state_view.h"

#include "klee/Expr/Expr.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace klee {
class ExecutionState;
class MemoryObject;
} // namespace klee

namespace llvm {
class Function;
class Type;
} // namespace llvm

namespace pspa_plugin {

class LastAnswers {
public:
  /// Object bytes the entries may copy in all; beyond it they start over.
  static constexpr std::uint64_t MaxBytes = 64u << 20;
  /// What one entry may compare: keeping a state costs a copy of what was read at every
  /// analysis, and large ones rarely stay unchanged from one call to the next (libtasn1's
  /// tree walks: 368 and 1,135 nodes, written between calls; keeping them cost 10 %).
  static constexpr std::size_t MaxObjects = 64;
  static constexpr std::uint64_t MaxEntryBytes = 8u << 10;

  struct Hit {
    Answer answer;
    pspa::CallReport report;
  };

  /// `f`'s last answer, if `state` still holds, for `args`, what that analysis read.
  const Hit *find(const klee::ExecutionState &state, llvm::Function *f,
                  const std::vector<klee::ref<klee::Expr>> &args, const ReadContext &ctx) const;

  /// Keep `answer`, made from `view` of `state` (reads: the context's counters before the
  /// analysis), if every read was of concrete bytes and the state is small enough.
  void remember(const klee::ExecutionState &state, llvm::Function *f,
                const std::vector<klee::ref<klee::Expr>> &args, const KleeStateView &view,
                const ReadContext &ctx, const ReadStats &before, Answer answer, const pspa::CallReport &report);

  std::uint64_t hits = 0;

private:
  struct Met {
    std::uint64_t address, id;
    llvm::Type *type;
  };
  struct Entry {
    std::vector<klee::ref<klee::Expr>> args;
    std::vector<Met> met;
    /// The objects read (indices into `met`) and their bytes, one after the other.
    std::vector<std::uint32_t> read;
    std::vector<std::uint8_t> bytes;
    /// Sorted.
    std::vector<std::uint64_t> unresolved;
    Hit hit;
  };
  bool holds(const Entry &e, const klee::ExecutionState &state, const std::vector<klee::ref<klee::Expr>> &args,
             const ReadContext &ctx) const;
  std::unordered_map<llvm::Function *, Entry> last;
  std::uint64_t bytes = 0;
};

} // namespace pspa_plugin

#endif
