#include "compiler/tuning/tuning_file.h"

#include <algorithm>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "support/status.h"

namespace tilejit {

namespace {

using Json = nlohmann::json;

// A JSON node with the path that leads to it ("ops.paged_decode.tilings[3] (h128_p32_c1k)"),
// so every error names the file, the row and the field.
class Node {
 public:
  Node(const Json& json, std::string path) : json_(json), path_(std::move(path)) {}
  const Json& json() const { return json_; }
  const std::string& path() const { return path_; }

  absl::Status error(std::string_view problem) const {
    return absl::InvalidArgumentError(absl::StrCat(path_, ": ", asAbsl(problem)));
  }
  absl::Status expect(Json::value_t type, std::string_view what) const {
    if (json_.type() == type) return absl::OkStatus();
    return error(absl::StrCat("expected ", asAbsl(what), ", found ", json_.type_name()));
  }
  // An object whose keys are all in `fields` and hold every one of `required`.
  absl::Status expectFields(const std::vector<std::string>& fields,
                            const std::vector<std::string>& required) const {
    TJ_RETURN_IF_ERROR(expect(Json::value_t::object, "an object"));
    for (const auto& item : json_.items())
      if (std::find(fields.begin(), fields.end(), item.key()) == fields.end())
        return error(absl::StrCat("unknown field '", item.key(), "'; fields: ",
                                  absl::StrJoin(fields, ", ")));
    for (const std::string& name : required)
      if (!json_.contains(name)) return error(absl::StrCat("missing field '", name, "'"));
    return absl::OkStatus();
  }
  Node child(const std::string& key) const {
    return Node(json_.at(key), absl::StrCat(path_, ".", key));
  }
  Node element(size_t index) const {
    std::string path = absl::StrCat(path_, "[", index, "]");
    const Json& row = json_.at(index);
    if (row.is_object() && row.contains("name") && row["name"].is_string())
      absl::StrAppend(&path, " (", row["name"].get<std::string>(), ")");
    return Node(row, std::move(path));
  }

  absl::StatusOr<int64_t> integer() const {
    if (!json_.is_number_integer())
      return error(absl::StrCat("expected an integer, found ", json_.type_name()));
    return json_.get<int64_t>();
  }
  // An integer, or null for no limit.
  absl::StatusOr<int64_t> limit() const {
    if (json_.is_null()) return kNoTilingLimit;
    if (!json_.is_number_integer())
      return error(
          absl::StrCat("expected an integer or null (no limit), found ", json_.type_name()));
    return json_.get<int64_t>();
  }
  absl::StatusOr<std::string> text() const {
    TJ_RETURN_IF_ERROR(expect(Json::value_t::string, "a string"));
    return json_.get<std::string>();
  }
  absl::StatusOr<bool> boolean() const {
    TJ_RETURN_IF_ERROR(expect(Json::value_t::boolean, "true or false"));
    return json_.get<bool>();
  }
  // A string, or an integer written as text (a `when` value compares with a bound value's text).
  absl::StatusOr<std::string> valueText() const {
    if (json_.is_string()) return json_.get<std::string>();
    if (json_.is_number_integer()) return std::to_string(json_.get<int64_t>());
    return error(absl::StrCat("expected a string or an integer, found ", json_.type_name()));
  }

 private:
  const Json& json_;
  std::string path_;
};

absl::StatusOr<TunedValue> readTunedValue(const Node& node) {
  TJ_RETURN_IF_ERROR(node.expectFields({"value", "evidence"}, {"value", "evidence"}));
  TunedValue value;
  TJ_ASSIGN_OR_RETURN(value.value, node.child("value").integer());
  TJ_ASSIGN_OR_RETURN(value.evidence, node.child("evidence").text());
  return value;
}

// Rows of an array, each an object with a unique "name".
absl::Status forEachNamedRow(const Node& rows,
                             const std::function<absl::Status(const Node&)>& read) {
  TJ_RETURN_IF_ERROR(rows.expect(Json::value_t::array, "an array of rows"));
  std::set<std::string> names;
  for (size_t i = 0; i < rows.json().size(); ++i) {
    Node row = rows.element(i);
    TJ_RETURN_IF_ERROR(row.expect(Json::value_t::object, "a row object"));
    if (!row.json().contains("name")) return row.error("missing field 'name'");
    std::string name;
    TJ_ASSIGN_OR_RETURN(name, row.child("name").text());
    if (!names.insert(name).second)
      return row.error(absl::StrCat("duplicate row name '", name, "'"));
    TJ_RETURN_IF_ERROR(read(row));
  }
  return absl::OkStatus();
}

absl::StatusOr<ConditionalTuning> readConditional(const Node& row) {
  const std::vector<std::string> fields = {"name", "when", "set", "evidence"};
  TJ_RETURN_IF_ERROR(row.expectFields(fields, fields));
  ConditionalTuning conditional;
  TJ_ASSIGN_OR_RETURN(conditional.name, row.child("name").text());
  TJ_ASSIGN_OR_RETURN(conditional.evidence, row.child("evidence").text());
  Node when = row.child("when"), set = row.child("set");
  TJ_RETURN_IF_ERROR(when.expect(Json::value_t::object, "an object of parameter values"));
  TJ_RETURN_IF_ERROR(set.expect(Json::value_t::object, "an object of parameter values"));
  if (when.json().empty()) return when.error("a conditional row needs at least one condition");
  for (const auto& item : when.json().items()) {
    TJ_ASSIGN_OR_RETURN(conditional.when[item.key()], when.child(item.key()).valueText());
  }
  for (const auto& item : set.json().items()) {
    TJ_ASSIGN_OR_RETURN(conditional.set[item.key()], set.child(item.key()).integer());
  }
  return conditional;
}

absl::StatusOr<TemplateTuning> readTemplate(const Node& node) {
  TJ_RETURN_IF_ERROR(node.expectFields({"defaults", "conditional"}, {}));
  TemplateTuning tuning;
  if (node.json().contains("defaults")) {
    Node defaults = node.child("defaults");
    TJ_RETURN_IF_ERROR(defaults.expect(Json::value_t::object, "an object of parameters"));
    for (const auto& item : defaults.json().items()) {
      TJ_ASSIGN_OR_RETURN(tuning.defaults[item.key()], readTunedValue(defaults.child(item.key())));
    }
  }
  if (node.json().contains("conditional"))
    TJ_RETURN_IF_ERROR(
        forEachNamedRow(node.child("conditional"), [&](const Node& row) -> absl::Status {
          TJ_ASSIGN_OR_RETURN(auto conditional, readConditional(row));
          tuning.conditional.push_back(std::move(conditional));
          return absl::OkStatus();
        }));
  return tuning;
}

absl::StatusOr<DecodeTiling> readTiling(const Node& row) {
  const std::vector<std::string> fields = {"name",          "max_programs",   "max_context",
                                           "max_head_size", "partition_size", "block_n",
                                           "prefetch_depth", "cluster_merge", "num_warps",
                                           "evidence"};
  TJ_RETURN_IF_ERROR(row.expectFields(fields, fields));
  DecodeTiling tiling;
  TJ_ASSIGN_OR_RETURN(tiling.name, row.child("name").text());
  TJ_ASSIGN_OR_RETURN(tiling.maxPrograms, row.child("max_programs").limit());
  TJ_ASSIGN_OR_RETURN(tiling.maxContext, row.child("max_context").limit());
  const std::pair<const char*, int64_t*> integers[] = {
      {"max_head_size", &tiling.maxHeadSize}, {"partition_size", &tiling.partitionSize},
      {"block_n", &tiling.blockN},            {"prefetch_depth", &tiling.prefetchDepth},
      {"num_warps", &tiling.numWarps}};
  for (const auto& [name, field] : integers) {
    TJ_ASSIGN_OR_RETURN(*field, row.child(name).integer());
  }
  TJ_ASSIGN_OR_RETURN(tiling.clusterMerge, row.child("cluster_merge").boolean());
  TJ_ASSIGN_OR_RETURN(tiling.evidence, row.child("evidence").text());
  return tiling;
}

absl::StatusOr<DecodeTilingCheck> readCheck(const Node& node) {
  TJ_RETURN_IF_ERROR(node.expectFields({"shape", "picks"}, {"shape", "picks"}));
  Node shape = node.child("shape");
  const std::vector<std::string> dims = {"num_seqs", "num_kv_heads", "max_model_len", "head_size"};
  TJ_RETURN_IF_ERROR(shape.expectFields(dims, dims));
  DecodeTilingCheck check;
  const std::pair<const char*, int64_t*> integers[] = {
      {"num_seqs", &check.numSeqs}, {"num_kv_heads", &check.numKvHeads},
      {"max_model_len", &check.maxModelLen}, {"head_size", &check.headSize}};
  for (const auto& [name, field] : integers) {
    TJ_ASSIGN_OR_RETURN(*field, shape.child(name).integer());
  }
  if (!node.json().at("picks").is_null()) {
    TJ_ASSIGN_OR_RETURN(check.picks, node.child("picks").text());
  }
  return check;
}

absl::Status readPagedDecode(const Node& node, TargetTuning& tuning) {
  TJ_RETURN_IF_ERROR(node.expectFields({"tilings", "merge", "checks"}, {}));
  if (node.json().contains("tilings"))
    TJ_RETURN_IF_ERROR(forEachNamedRow(node.child("tilings"), [&](const Node& row) -> absl::Status {
      TJ_ASSIGN_OR_RETURN(DecodeTiling tiling, readTiling(row));
      tuning.decodeTilings.push_back(std::move(tiling));
      return absl::OkStatus();
    }));
  if (node.json().contains("merge")) {
    Node merge = node.child("merge");
    TJ_RETURN_IF_ERROR(merge.expectFields(
        {"large_merge_pairs", "large_merge_heads_per_program", "large_merge_tiles"}, {}));
    std::pair<const char*, std::optional<TunedValue>*> rules[] = {
        {"large_merge_pairs", &tuning.decodeMerge.largeMergePairs},
        {"large_merge_heads_per_program", &tuning.decodeMerge.largeMergeHeadsPerProgram},
        {"large_merge_tiles", &tuning.decodeMerge.largeMergeTiles}};
    for (auto& [name, rule] : rules)
      if (merge.json().contains(name)) {
        TJ_ASSIGN_OR_RETURN(*rule, readTunedValue(merge.child(name)));
      }
  }
  if (node.json().contains("checks")) {
    Node checks = node.child("checks");
    TJ_RETURN_IF_ERROR(checks.expect(Json::value_t::array, "an array of checks"));
    for (size_t i = 0; i < checks.json().size(); ++i) {
      TJ_ASSIGN_OR_RETURN(DecodeTilingCheck check, readCheck(checks.element(i)));
      if (check.picks &&
          std::none_of(tuning.decodeTilings.begin(), tuning.decodeTilings.end(),
                       [&](const DecodeTiling& row) { return row.name == *check.picks; }))
        return checks.element(i).child("picks").error(
            absl::StrCat("names no tiling row: '", *check.picks, "'"));
      tuning.decodeTilingChecks.push_back(check);
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TargetTuning> readTargetTuning(const Node& root) {
  TJ_RETURN_IF_ERROR(root.expectFields({"target", "measured", "provenance", "templates", "ops"},
                                    {"target", "measured", "provenance"}));
  TargetTuning tuning;
  TJ_ASSIGN_OR_RETURN(tuning.target, root.child("target").text());
  TJ_ASSIGN_OR_RETURN(tuning.measured, root.child("measured").boolean());
  TJ_ASSIGN_OR_RETURN(tuning.provenance, root.child("provenance").text());
  if (root.json().contains("templates")) {
    Node templates = root.child("templates");
    TJ_RETURN_IF_ERROR(templates.expect(Json::value_t::object, "an object of templates"));
    for (const auto& item : templates.json().items()) {
      TJ_ASSIGN_OR_RETURN(tuning.templates[item.key()], readTemplate(templates.child(item.key())));
    }
  }
  if (root.json().contains("ops")) {
    Node ops = root.child("ops");
    TJ_RETURN_IF_ERROR(ops.expectFields({"paged_decode"}, {}));
    if (ops.json().contains("paged_decode"))
      TJ_RETURN_IF_ERROR(readPagedDecode(ops.child("paged_decode"), tuning));
  }
  return tuning;
}

}  // namespace

absl::StatusOr<TargetTuning> parseTuningFile(std::string_view source, std::string_view text) {
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    return absl::InvalidArgumentError(absl::StrCat(std::string(source), ": not valid JSON"));
  absl::StatusOr<TargetTuning> tuning = readTargetTuning(Node(json, std::string(source)));
  if (!tuning.ok()) return tuning.status();
  tuning->source = std::string(source);
  return tuning;
}

}  // namespace tilejit
