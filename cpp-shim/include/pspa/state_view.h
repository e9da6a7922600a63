// The state the Rust core analyses, seen from C++ (the paper's section 3 API).
// Free of KLEE: the bridge (src/klee.rs) compiles against this header alone; the KLEE
// plugin implements it over klee::ExecutionState (cpp-shim/src/klee_state.cpp).
#pragma once
#include "rust/cxx.h"
#include <cstddef>
#include <cstdint>

namespace pspa {
struct ObjectFfi;
struct TargetFfi;
struct SlotFfi;
struct GlobalFfi;

class StateView {
public:
  virtual ~StateView() = default;
  /// Actual arguments of the call being analysed.
  virtual std::size_t num_args() const = 0;
  /// Targets of argument i; false when it carries no pointer.
  virtual bool arg(std::size_t i, rust::Vec<TargetFfi> &out) const = 0;
  /// The object holding each global variable.
  virtual rust::Vec<GlobalFfi> globals() const = 0;
  /// An object by id; false when the state has none.
  virtual bool object(std::uint64_t id, ObjectFfi &out) const = 0;
  /// The fields of an object that may hold pointers, with their targets.
  virtual rust::Vec<SlotFfi> pointer_slots(std::uint64_t id) const = 0;
};
} // namespace pspa
