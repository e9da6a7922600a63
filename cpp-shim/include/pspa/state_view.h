// The state the Rust core analyses, seen from C++ (the paper's section 3 API).
// Free of KLEE: the bridge (bridge/src/lib.rs) compiles against this header alone; the KLEE
// plugin implements it over klee::ExecutionState (cpp-shim/src/klee_state.cpp).
#pragma once
#include "rust/cxx.h"
#include <cstddef>
#include <cstdint>

namespace pspa {
struct ObjectFfi;
struct TargetFfi;
struct GlobalFfi;
enum class Read : std::uint8_t;

class StateView {
public:
  virtual ~StateView() = default;
  /// Actual arguments of the call being analysed.
  virtual std::size_t num_args() const = 0;
  /// Targets of argument i: Read::NoPointer when it carries none, Read::Failed when it
  /// could not be read faithfully (the call then fails before anything is solved).
  virtual Read arg(std::size_t i, rust::Vec<TargetFfi> &out) const = 0;
  /// The object holding each global variable.
  virtual rust::Vec<GlobalFfi> globals() const = 0;
  /// An object by id; false when the state has none.
  virtual bool object(std::uint64_t id, ObjectFfi &out) const = 0;
  /// The fields of an object that may hold pointers, with their targets, into the view's
  /// own buffer (`slots_read`); false when its contents could not be read faithfully.
  virtual bool pointer_slots(std::uint64_t id) const = 0;
  /// What the last `pointer_slots` read, until the next: a slice of the view's buffer,
  /// not a rust::Vec, whose every push_back is four calls into Rust.
  virtual rust::Slice<const TargetFfi> slots_read() const = 0;
};
} // namespace pspa
