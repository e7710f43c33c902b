#include "compiler/tuning/tuning_table.h"

#include <algorithm>
#include <memory>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "compiler/tuning/compiled_tuning.h"

namespace tilejit {

namespace {

std::mutex overridesMutex;
std::map<std::string, const TargetTuning*>& overrides() {
  static std::map<std::string, const TargetTuning*> byTarget;
  return byTarget;
}

const TemplateTuning* templateTuning(const TargetDescription& target, std::string_view name) {
  const TargetTuning& tuning = tuningFor(target);
  auto it = tuning.templates.find(std::string(name));
  return it == tuning.templates.end() ? nullptr : &it->second;
}

}  // namespace

std::vector<std::string_view> embeddedTuningTargets() {
  std::vector<std::string_view> targets;
  for (const CompiledTuning& compiled : compiledTunings()) targets.push_back(compiled.target);
  return targets;
}

// Built on first use: a process that compiles for one target builds one target's tables.
const TargetTuning* embeddedTargetTuning(std::string_view target) {
  absl::Span<const CompiledTuning> compiled = compiledTunings();
  auto it = std::lower_bound(
      compiled.begin(), compiled.end(), target,
      [](const CompiledTuning& entry, std::string_view name) { return entry.target < name; });
  if (it == compiled.end() || it->target != target) return nullptr;
  struct Built {
    std::once_flag once;
    std::unique_ptr<const TargetTuning> tuning;
  };
  static const std::unique_ptr<Built[]> built(new Built[compiled.size()]);
  Built& slot = built[it - compiled.begin()];
  std::call_once(slot.once,
                 [&] { slot.tuning = std::make_unique<const TargetTuning>(it->build()); });
  return slot.tuning.get();
}

const TargetTuning& tuningFor(const TargetDescription& target) {
  {
    std::lock_guard<std::mutex> lock(overridesMutex);
    if (auto it = overrides().find(target.name); it != overrides().end()) return *it->second;
  }
  static const TargetTuning empty;
  const TargetTuning* embedded = embeddedTargetTuning(target.name);
  return embedded ? *embedded : empty;
}

std::optional<int64_t> tunedValue(const TargetDescription& target, std::string_view key) {
  size_t dot = key.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const TemplateTuning* tuning = templateTuning(target, key.substr(0, dot));
  if (!tuning) return std::nullopt;
  auto it = tuning->defaults.find(std::string(key.substr(dot + 1)));
  return it == tuning->defaults.end() ? std::nullopt : std::optional<int64_t>(it->second.value);
}

std::optional<int64_t> TargetDescription::tuned(const std::string& key) const {
  return tunedValue(*this, key);
}

const std::vector<ConditionalTuning>& conditionalTuning(const TargetDescription& target,
                                                        std::string_view templateName) {
  static const std::vector<ConditionalTuning> none;
  const TemplateTuning* tuning = templateTuning(target, templateName);
  return tuning ? tuning->conditional : none;
}

std::string canonicalTemplateTuning(const TargetDescription& target,
                                    std::string_view templateName) {
  const TemplateTuning* tuning = templateTuning(target, templateName);
  if (!tuning) return "";
  std::string text;
  for (const auto& [name, value] : tuning->defaults)
    absl::StrAppend(&text, name, "=", value.value, ";");
  for (const ConditionalTuning& row : tuning->conditional) {
    absl::StrAppend(&text, "[");
    for (const auto& [name, value] : row.when) absl::StrAppend(&text, name, "=", value, ",");
    absl::StrAppend(&text, ":");
    for (const auto& [name, value] : row.set) absl::StrAppend(&text, name, "=", value, ",");
    absl::StrAppend(&text, "]");
  }
  return text;
}

std::optional<DecodeTiling> chooseDecodeTiling(const TargetDescription& target, int64_t programs,
                                               int64_t maxModelLen, int64_t headSize) {
  for (const DecodeTiling& row : tuningFor(target).decodeTilings)
    if (programs <= row.maxPrograms && maxModelLen <= row.maxContext && headSize <= row.maxHeadSize)
      return row;
  return std::nullopt;
}

// Large merges take several heads per program, as long as heads x step tiles of [head_size]
// stay few enough for registers.
std::optional<int64_t> mergeHeadsPerProgram(const TargetDescription& target, int64_t pairs,
                                            int64_t step) {
  const DecodeMergeRules& rules = tuningFor(target).decodeMerge;
  if (!rules.largeMergePairs || !rules.largeMergeHeadsPerProgram ||
      pairs < rules.largeMergePairs->value)
    return std::nullopt;
  int64_t heads = rules.largeMergeHeadsPerProgram->value;
  if (!rules.largeMergeTiles) return heads;
  return std::max<int64_t>(
      1, std::min(heads, rules.largeMergeTiles->value / std::max<int64_t>(1, step)));
}

ScopedTuningOverride::ScopedTuningOverride(TargetTuning tuning) : tuning_(std::move(tuning)) {
  std::lock_guard<std::mutex> lock(overridesMutex);
  overrides()[tuning_.target] = &tuning_;
}

ScopedTuningOverride::~ScopedTuningOverride() {
  std::lock_guard<std::mutex> lock(overridesMutex);
  overrides().erase(tuning_.target);
}

}  // namespace tilejit
