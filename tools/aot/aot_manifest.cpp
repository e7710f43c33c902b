#include "tools/aot/aot_manifest.h"

#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {
namespace {

// ordered_json keeps the manifest's key order, which sets the grid's expansion order.
using Json = nlohmann::ordered_json;

absl::Status fieldError(const std::string& field, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("manifest: ", field, ": ", what));
}

std::string resolve(const std::string& path, const std::string& baseDir) {
  if (path.empty() || path[0] == '/' || baseDir.empty()) return path;
  return absl::StrCat(baseDir, "/", path);
}

// Grid values may be written as JSON strings, integers or booleans; the specializer takes
// every value as text (what `-p name=value` would pass).
absl::StatusOr<std::string> valueText(const Json& value, const std::string& field) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_integer()) return std::to_string(value.get<int64_t>());
  if (value.is_boolean()) return std::string(value.get<bool>() ? "true" : "false");
  return fieldError(field, absl::StrCat("values must be strings, integers or booleans, got ",
                                        value.dump()));
}

absl::StatusOr<std::vector<std::string>> stringList(const Json& value, const std::string& field) {
  std::vector<std::string> list;
  if (value.is_string()) return std::vector<std::string>{value.get<std::string>()};
  if (!value.is_array()) return fieldError(field, "expected a string or a list of strings");
  for (const Json& item : value) {
    if (!item.is_string()) return fieldError(field, absl::StrCat("not a string: ", item.dump()));
    list.push_back(item.get<std::string>());
  }
  if (list.empty()) return fieldError(field, "empty list");
  return list;
}

absl::StatusOr<bool> flag(const Json& value, const std::string& field) {
  if (!value.is_boolean()) return fieldError(field, absl::StrCat("expected true or false, got ", value.dump()));
  return value.get<bool>();
}

absl::StatusOr<AotJob> parseJob(const Json& job, const std::string& where,
                                const std::string& baseDir, bool skipRejected) {
  if (!job.is_object()) return fieldError(where, "a job must be an object");
  // Unknown keys are errors: a typo ("target" for "targets", "grids") would otherwise
  // silently compile something other than what was meant.
  static const std::set<std::string> kKnown = {"template", "targets", "target", "grid",
                                               "skip_rejected"};
  for (auto it = job.begin(); it != job.end(); ++it)
    if (!kKnown.count(it.key()))
      return fieldError(where, absl::StrCat("unknown key '", it.key(),
                                            "' (known: template, targets, grid, skip_rejected)"));
  AotJob result;
  result.skipRejected = skipRejected;
  if (job.contains("skip_rejected")) {
    TJ_ASSIGN_OR_RETURN(result.skipRejected, flag(job["skip_rejected"], where + ".skip_rejected"));
  }
  if (!job.contains("template") || !job["template"].is_string() ||
      job["template"].get<std::string>().empty())
    return fieldError(where + ".template", "required: a shipped template name or a .mlir path");
  result.templateRef = job["template"].get<std::string>();
  if (isTemplatePath(result.templateRef)) result.templateRef = resolve(result.templateRef, baseDir);

  if (job.contains("targets") && job.contains("target"))
    return fieldError(where, "give either 'targets' or 'target', not both");
  const char* targetsKey = job.contains("targets") ? "targets" : "target";
  if (!job.contains(targetsKey))
    return fieldError(where + ".targets", "required: e.g. [\"sm_90\", \"host\"]");
  TJ_ASSIGN_OR_RETURN(result.targets,
                      stringList(job[targetsKey], absl::StrCat(where, ".", targetsKey)));

  if (job.contains("grid")) {
    const Json& grid = job["grid"];
    if (!grid.is_object()) return fieldError(where + ".grid", "expected an object");
    for (auto it = grid.begin(); it != grid.end(); ++it) {
      std::string field = absl::StrCat(where, ".grid.", it.key());
      std::vector<std::string> values;
      if (it.value().is_array()) {
        for (const Json& item : it.value()) {
          TJ_ASSIGN_OR_RETURN(std::string text, valueText(item, field));
          values.push_back(std::move(text));
        }
        if (values.empty()) return fieldError(field, "empty list: the job would expand to nothing");
      } else {
        TJ_ASSIGN_OR_RETURN(std::string text, valueText(it.value(), field));
        values.push_back(std::move(text));
      }
      std::set<std::string> unique(values.begin(), values.end());
      if (unique.size() != values.size()) return fieldError(field, "a value is listed twice");
      result.grid.emplace_back(it.key(), std::move(values));
    }
  }
  return result;
}

}  // namespace

bool isTemplatePath(std::string_view ref) {
  return ref.find('/') != std::string_view::npos ||
         (ref.size() > 5 && ref.substr(ref.size() - 5) == ".mlir");
}

std::string AotSpecRequest::describe() const {
  std::string text = absl::StrCat(templateRef, " ", target);
  for (const auto& [name, value] : parameters) absl::StrAppend(&text, " ", name, "=", value);
  return text;
}

absl::StatusOr<AotManifest> parseAotManifest(std::string_view text, const std::string& baseDir) {
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded())
    return absl::InvalidArgumentError("manifest: not valid JSON");
  if (!json.is_object()) return fieldError("(top level)", "expected an object");
  for (auto it = json.begin(); it != json.end(); ++it)
    if (it.key() != "bundle" && it.key() != "jobs" && it.key() != "skip_rejected")
      return fieldError(it.key(), "unknown key (known: bundle, jobs, skip_rejected)");
  AotManifest manifest;
  bool skipRejected = false;
  if (json.contains("skip_rejected")) {
    TJ_ASSIGN_OR_RETURN(skipRejected, flag(json["skip_rejected"], "skip_rejected"));
  }
  if (json.contains("bundle")) {
    if (!json["bundle"].is_string()) return fieldError("bundle", "expected a path");
    manifest.bundlePath = resolve(json["bundle"].get<std::string>(), baseDir);
  }
  if (!json.contains("jobs") || !json["jobs"].is_array() || json["jobs"].empty())
    return fieldError("jobs", "required: a non-empty list of jobs");
  for (size_t i = 0; i < json["jobs"].size(); ++i) {
    TJ_ASSIGN_OR_RETURN(AotJob job, parseJob(json["jobs"][i], absl::StrCat("jobs[", i, "]"),
                                             baseDir, skipRejected));
    manifest.jobs.push_back(std::move(job));
  }
  return manifest;
}

absl::StatusOr<AotManifest> loadAotManifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read manifest ", path));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string baseDir;
  if (size_t slash = path.rfind('/'); slash != std::string::npos)
    baseDir = path.substr(0, slash == 0 ? 1 : slash);
  absl::StatusOr<AotManifest> manifest = parseAotManifest(buffer.str(), baseDir);
  if (!manifest.ok())
    return absl::Status(manifest.status().code(),
                        absl::StrCat(path, ": ", std::string(manifest.status().message())));
  return manifest;
}

std::vector<AotSpecRequest> expandAotManifest(const AotManifest& manifest) {
  std::vector<AotSpecRequest> requests;
  std::set<std::string> seen;
  for (const AotJob& job : manifest.jobs) {
    for (const std::string& target : job.targets) {
      // Odometer over the grid: index[i] selects a value of grid[i]; the last one turns fastest.
      std::vector<size_t> index(job.grid.size(), 0);
      while (true) {
        AotSpecRequest request{job.templateRef, target, {}, job.skipRejected};
        for (size_t i = 0; i < job.grid.size(); ++i)
          request.parameters[job.grid[i].first] = job.grid[i].second[index[i]];
        if (seen.insert(request.describe()).second) requests.push_back(std::move(request));
        size_t i = job.grid.size();
        while (i > 0 && ++index[i - 1] == job.grid[i - 1].second.size()) index[--i] = 0;
        if (i == 0) break;
      }
    }
  }
  return requests;
}

}  // namespace tilejit
