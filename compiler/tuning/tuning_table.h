// Per-target tuning as data: one JSON file per target (compiler/backends/<backend>/tuning/
// <target>.json, schema in compiler/tuning/README.md), compiled into the binary at build time
// and read here only. Every value names the benchmark result it came from.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/targets/target_description.h"
#include "compiler/tuning/tuning_file.h"

namespace tilejit {

// The targets with a tuning file, sorted. The files are parsed and checked at build time
// (tilejit-tuning-compile): a malformed one fails the build.
std::vector<std::string_view> embeddedTuningTargets();

// A target's tuning from its file (built from compiled-in constants on first use); null where
// it has none. Overrides do not apply here.
const TargetTuning* embeddedTargetTuning(std::string_view target);

// The target's tuning (an empty one where it has no file).
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
