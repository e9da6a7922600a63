// The plugin's own KLEE options (options.cpp), read once at moduleReady into one struct:
// nothing else reads an llvm::cl variable of the plugin's. Each client reads its own
// options in its folder.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pspa_plugin {

struct PluginOptions {
  /// --pspa-mode=spa: whole-program answers.
  bool spa = false;
  /// --pspa-analyze, and the functions --pspa-analyze-files selects (resolved by the plugin).
  std::vector<std::string> analyze;
  std::vector<std::string> analyzeFiles;
  /// --pspa-analyze-all (or KLEE_PLUGIN_PSPA_ANALYZE_ALL=1).
  bool analyzeAll = false;
  std::string dumpSnapshots;
  bool noReuse = false, allGlobals = false, eager = false;
  /// --pspa-follow-exits: analyses follow calls that end the process.
  bool followExits = false;
  /// --pspa-fallback=whole-program: a call the past-sensitive analysis cannot answer gets
  /// its function's whole-program answer instead of none.
  bool fallback = true;
  /// --pspa-writeless: calls of functions that write nothing outside their frame in any
  /// state (but static objects, errno) are answered without reading it (off with --pspa-check, resolution, no reuse).
  bool writeless = true;
  /// A call whose state holds what its function's last analysis read gets that answer
  /// (last_answers.h); off with --pspa-no-reuse or --pspa-no-last-answers.
  bool lastAnswers = true;
  /// An object read again with the same contents in an address space with the same objects
  /// gives the words it gave (state_view.h, ReadCache); off with --pspa-no-read-cache.
  bool readCache = true;
  std::uint64_t maxWork = 0;
  /// --pspa-trial-work (SessionOptions::trial_work).
  std::uint64_t trialWork = 0;
  std::vector<std::string> allocators;
  bool keepPointsTo = false;
  /// --pspa-stats: the reading and reuse done lines.
  bool stats = false;
};

/// The options as parsed, with the environment's switches (KLEE_PLUGIN_PSPA_*=1) applied:
/// the clients' too (so that KLEE's own test suite can run with them).
PluginOptions pluginOptions();

} // namespace pspa_plugin
