// One tuning file as data (schema in compiler/tuning/README.md) and its parser. Free of target
// descriptions and MLIR: the build-time compiler of the tuning files (tuning_compile.cpp) uses it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

// A bound of a decode tiling row written as null in a tuning file: no limit.
constexpr int64_t kNoTilingLimit = int64_t{1} << 30;

// One row of a measured table of decode tilings: the best (partition size, block_n, prefetch
// depth, merge, warps) for grids of at most `maxPrograms` (sequences x kv heads), contexts of
// at most `maxContext` tokens and head sizes of at most `maxHeadSize` (larger heads need other
// tiles to fit shared memory).
struct DecodeTiling {
  int64_t maxPrograms;
  int64_t maxContext;
  int64_t maxHeadSize;
  int64_t partitionSize;
  int64_t blockN;
  int64_t prefetchDepth = 1;  // K/V tiles in flight ahead of the one in use
  // Merge the partitions of a sequence inside the split-K kernel through a thread-block
  // cluster, where the target has clusters and they fit in one (no merge kernel).
  bool clusterMerge = false;
  // Warps per program; 0 leaves the target's tuning value (paged_decode.num_warps).
  int64_t numWarps = 0;
  std::string name;      // the row's name in its tuning file
  std::string evidence;  // the benchmark results it came from
};

struct TunedValue {
  int64_t value = 0;
  std::string evidence;
};

// Values for some parameters that hold for one variant of a template only (e.g. one KV
// layout): applied where every `when` parameter is bound to its value (as text) and the
// caller did not give the parameter.
struct ConditionalTuning {
  std::string name;
  std::map<std::string, std::string> when;
  std::map<std::string, int64_t> set;
  std::string evidence;
};

struct TemplateTuning {
  std::map<std::string, TunedValue> defaults;  // by parameter name
  std::vector<ConditionalTuning> conditional;  // in file order: a later row wins
};

// A shape and the decode tiling row it must pick (nullopt: none).
struct DecodeTilingCheck {
  int64_t numSeqs = 0, numKvHeads = 0, maxModelLen = 0, headSize = 0;
  std::optional<std::string> picks;
};

// The paged_decode op's rules for its merge kernel's heads per program (mergeHeadsPerProgram).
struct DecodeMergeRules {
  std::optional<TunedValue> largeMergePairs;
  std::optional<TunedValue> largeMergeHeadsPerProgram;
  std::optional<TunedValue> largeMergeTiles;
};

struct TargetTuning {
  std::string source;  // the file it was read from, for messages
  std::string target;
  bool measured = false;
  std::string provenance;
  std::map<std::string, TemplateTuning> templates;  // by template name
  std::vector<DecodeTiling> decodeTilings;          // first matching row wins
  DecodeMergeRules decodeMerge;
  std::vector<DecodeTilingCheck> decodeTilingChecks;
};

// Reads one tuning file; errors name the file, the row and the field.
absl::StatusOr<TargetTuning> parseTuningFile(std::string_view source, std::string_view text);

}  // namespace tilejit
