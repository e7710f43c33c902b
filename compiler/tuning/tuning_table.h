// Per-target tuning as data: one JSON file per target (compiler/backends/<backend>/tuning/
// <target>.json, schema in compiler/tuning/README.md), embedded in the binary and read here
// only. Every value names the benchmark result it came from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/targets/target_description.h"

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

struct TuningFile {
  std::string_view path;  // under compiler/backends/: "cuda/tuning/sm_90.json"
  std::string_view content;
};
const std::vector<TuningFile>& embeddedTuningFiles();

// The target's tuning (an empty one where it has no file). The embedded files are read once;
// a malformed one aborts with the loader's message (the tuning tests read every file).
const TargetTuning& tuningFor(const TargetDescription& target);

// The tuned value under `key` ("<template>.<parameter>"), if the target has one.
std::optional<int64_t> tunedValue(const TargetDescription& target, std::string_view key);

// The conditional rows of one template on the target (file order).
const std::vector<ConditionalTuning>& conditionalTuning(const TargetDescription& target,
                                                        std::string_view templateName);

// A template's defaults and conditional rows on the target as canonical text (values only,
// no evidence): what its cache keys hash, so retuning one template leaves the others' keys.
std::string canonicalTemplateTuning(const TargetDescription& target,
                                    std::string_view templateName);

// The measured tiling for a grid and head size, if the target's table has a row for it.
std::optional<DecodeTiling> chooseDecodeTiling(const TargetDescription& target, int64_t programs,
                                               int64_t maxModelLen, int64_t headSize);

// The merge's heads per program from the target's tuning for `pairs` (sequence, q head)
// pairs merged `step` partitions at a time; nullopt where the target's rule leaves the
// template's default (small merges, or no rule).
std::optional<int64_t> mergeHeadsPerProgram(const TargetDescription& target, int64_t pairs,
                                            int64_t step);

// Replaces one target's tuning while alive (tests; kernel authors trying a row). Not nested
// for the same target. A JitCompiler memoizes keys per spec: create one after the override.
class ScopedTuningOverride {
 public:
  explicit ScopedTuningOverride(TargetTuning tuning);
  ~ScopedTuningOverride();
  ScopedTuningOverride(const ScopedTuningOverride&) = delete;
  ScopedTuningOverride& operator=(const ScopedTuningOverride&) = delete;

 private:
  TargetTuning tuning_;
};

}  // namespace tilejit
