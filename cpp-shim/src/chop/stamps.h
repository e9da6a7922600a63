// Per-byte write stamps kept per path, shared with the path's forks and snapshots.
//
// A path forks and takes snapshots far more often than it writes any one object, and it
// keeps stamps for every object written while a skip is pending: a std::map copied at
// each snapshot and fork cost a fifth of a libtasn1 run with five functions skipped
// (perf, 1,757 snapshots). Here a copy is O(1): the table is KLEE's persistent
// ImmutableMap, and a byte vector is copied only when a table writes one it shares.
#pragma once

// GCC 12 takes the static terminator node's reference count for a heap object's (it
// never reaches zero): false positives inside KLEE's header, silenced for it alone.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#include "klee/ADT/ImmutableMap.h"
#pragma GCC diagnostic pop

#include <cstdint>
#include <memory>
#include <vector>

namespace pspa_plugin::chop {

template <class Key> class StampTable {
public:
  using Bytes = std::vector<unsigned>;

  StampTable() = default;
  /// Both tables get new owner ids: the vectors they shared are now neither's to write.
  StampTable(const StampTable &o) : map(o.map), owner(fresh()) { o.owner = fresh(); }
  StampTable &operator=(const StampTable &o) {
    map = o.map;
    owner = fresh();
    o.owner = fresh();
    return *this;
  }

  /// The stamps of `k`'s bytes, or null when none was stamped.
  const Bytes *find(const Key &k) const {
    const auto *v = map.lookup(k);
    return v ? v->second.bytes.get() : nullptr;
  }
  /// `k`'s stamps, writable by this table alone: copied first if another table may see
  /// them (created before the last copy of either), created empty if missing.
  Bytes &own(const Key &k) {
    const auto *v = map.lookup(k);
    if (v && v->second.owner == owner)
      return *v->second.bytes;
    auto bytes = v ? std::make_shared<Bytes>(*v->second.bytes) : std::make_shared<Bytes>();
    map = map.replace({k, Entry{bytes, owner}});
    return *bytes;
  }
  void clear() { map = Map(); }

private:
  struct Entry {
    std::shared_ptr<Bytes> bytes;
    std::uint64_t owner; // the table that made this vector and has not been copied since
  };
  using Map = klee::ImmutableMap<Key, Entry>;
  static std::uint64_t fresh() {
    static std::uint64_t next = 0; // KLEE runs states on one thread
    return ++next;
  }

  Map map;
  mutable std::uint64_t owner = fresh();
};

} // namespace pspa_plugin::chop
