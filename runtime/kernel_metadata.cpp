#include "runtime/kernel_metadata.h"

#include <nlohmann/json.hpp>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {
namespace {

using Json = nlohmann::json;

std::string_view kindName(ArgSpec::Kind kind) {
  return kind == ArgSpec::Kind::kView ? "view" : "scalar";
}

Json dimToJson(const DimSpec& dim) {
  if (dim.isSymbolic()) return Json(dim.symbol);
  return Json(dim.value);
}

// Reading is done through these helpers so that every error names the field path
// ("args[1].dims[2]") and what was found there, instead of surfacing a json exception.
class Reader {
 public:
  absl::Status error(std::string_view path, std::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel metadata: ", asAbsl(path), ": ", asAbsl(what)));
  }

  static std::string describe(const Json& value) {
    std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return absl::StrCat(value.type_name(), " ", text);
  }

  absl::StatusOr<const Json*> field(const Json& object, std::string_view path,
                                    const char* key) const {
    auto it = object.find(key);
    if (it == object.end()) return error(path, absl::StrCat("missing field '", key, "'"));
    return &*it;
  }

  absl::StatusOr<std::string> string(const Json& object, std::string_view path,
                                     const char* key) const {
    TJ_ASSIGN_OR_RETURN(const Json* value, field(object, path, key));
    if (!value->is_string())
      return error(absl::StrCat(asAbsl(path), ".", key),
                   absl::StrCat("expected a string, got ", describe(*value)));
    return value->get<std::string>();
  }

  absl::StatusOr<int64_t> integer(const Json& object, std::string_view path, const char* key,
                                  std::optional<int64_t> fallback = std::nullopt) const {
    auto it = object.find(key);
    if (it == object.end()) {
      if (fallback) return *fallback;
      return error(path, absl::StrCat("missing field '", key, "'"));
    }
    if (!it->is_number_integer())
      return error(absl::StrCat(asAbsl(path), ".", key),
                   absl::StrCat("expected an integer, got ", describe(*it)));
    return it->get<int64_t>();
  }

  absl::StatusOr<bool> boolean(const Json& object, std::string_view path, const char* key,
                               bool fallback) const {
    auto it = object.find(key);
    if (it == object.end()) return fallback;
    if (!it->is_boolean())
      return error(absl::StrCat(asAbsl(path), ".", key),
                   absl::StrCat("expected true or false, got ", describe(*it)));
    return it->get<bool>();
  }
};

}  // namespace

std::string serializeMetadata(const KernelMetadata& metadata) {
  Json root = Json::object();
  root["template"] = metadata.templateName;
  root["entry"] = metadata.entry;
  root["target"] = metadata.target;
  root["backend"] = metadata.backend;
  Json parameters = Json::array();
  for (const auto& [name, value] : metadata.parameters) parameters.push_back({name, value});
  root["parameters"] = std::move(parameters);
  Json args = Json::array();
  for (const ArgSpec& arg : metadata.args) {
    Json entry = {
        {"name", arg.name}, {"kind", kindName(arg.kind)}, {"dtype", dtypeName(arg.dtype)}};
    if (arg.kind == ArgSpec::Kind::kView) {
      Json dims = Json::array();
      for (const DimSpec& dim : arg.dims) dims.push_back(dimToJson(dim));
      entry["dims"] = std::move(dims);
      entry["contiguous"] = arg.contiguous;
      entry["writable"] = arg.writable;
    }
    args.push_back(std::move(entry));
  }
  root["args"] = std::move(args);
  root["grid"] = {metadata.grid[0], metadata.grid[1], metadata.grid[2]};
  root["threads_per_program"] = metadata.threadsPerProgram;
  root["dynamic_shared_bytes"] = metadata.dynamicSharedBytes;
  root["vector_bytes"] = metadata.vectorBytes;
  root["waits_for_previous_kernel"] = metadata.waitsForPreviousKernel;
  root["cluster_programs"] = metadata.clusterPrograms;
  root["resources"] = {{"registers", metadata.resources.registers},
                       {"spill_stores", metadata.resources.spillStores},
                       {"spill_loads", metadata.resources.spillLoads},
                       {"static_shared_bytes", metadata.resources.staticSharedBytes},
                       {"local_bytes", metadata.resources.localBytes}};
  // Replace rather than throw on invalid UTF-8 in a name: serializing must not fail.
  return root.dump(2, ' ', false, Json::error_handler_t::replace);
}

namespace {

absl::StatusOr<ArgSpec> parseArg(const Reader& reader, const Json& entry, std::string_view path) {
  if (!entry.is_object())
    return reader.error(path, absl::StrCat("expected an object, got ", Reader::describe(entry)));
  ArgSpec arg;
  TJ_ASSIGN_OR_RETURN(arg.name, reader.string(entry, path, "name"));
  TJ_ASSIGN_OR_RETURN(std::string kind, reader.string(entry, path, "kind"));
  if (kind == "view") {
    arg.kind = ArgSpec::Kind::kView;
  } else if (kind == "scalar") {
    arg.kind = ArgSpec::Kind::kScalar;
  } else {
    return reader.error(absl::StrCat(asAbsl(path), ".kind"),
                        absl::StrCat("unknown kind '", kind, "'; expected 'view' or 'scalar'"));
  }
  TJ_ASSIGN_OR_RETURN(std::string dtype, reader.string(entry, path, "dtype"));
  absl::StatusOr<DType> parsed = parseDType(dtype);
  if (!parsed.ok())
    return reader.error(absl::StrCat(asAbsl(path), ".dtype"),
                        std::string(parsed.status().message()));
  arg.dtype = *parsed;
  if (arg.kind == ArgSpec::Kind::kScalar) return arg;

  TJ_ASSIGN_OR_RETURN(const Json* dims, reader.field(entry, path, "dims"));
  std::string dimsPath = absl::StrCat(asAbsl(path), ".dims");
  if (!dims->is_array())
    return reader.error(dimsPath, absl::StrCat("expected an array, got ", Reader::describe(*dims)));
  for (size_t i = 0; i < dims->size(); ++i) {
    const Json& dim = (*dims)[i];
    DimSpec spec;
    if (dim.is_string() && !dim.get<std::string>().empty()) {
      spec.symbol = dim.get<std::string>();
    } else if (dim.is_number_integer() && dim.get<int64_t>() >= 0) {
      spec.value = dim.get<int64_t>();
    } else {
      return reader.error(absl::StrCat(dimsPath, "[", i, "]"),
                          absl::StrCat("expected a shape symbol or a non-negative extent, got ",
                                       Reader::describe(dim)));
    }
    arg.dims.push_back(std::move(spec));
  }
  TJ_ASSIGN_OR_RETURN(arg.contiguous, reader.boolean(entry, path, "contiguous", false));
  TJ_ASSIGN_OR_RETURN(arg.writable, reader.boolean(entry, path, "writable", false));
  return arg;
}

absl::StatusOr<KernelMetadata> parseRoot(const Json& root) {
  Reader reader;
  if (!root.is_object())
    return reader.error("<root>", absl::StrCat("expected an object, got ", Reader::describe(root)));
  KernelMetadata metadata;
  TJ_ASSIGN_OR_RETURN(metadata.templateName, reader.string(root, "<root>", "template"));
  TJ_ASSIGN_OR_RETURN(metadata.entry, reader.string(root, "<root>", "entry"));
  TJ_ASSIGN_OR_RETURN(metadata.target, reader.string(root, "<root>", "target"));
  TJ_ASSIGN_OR_RETURN(metadata.backend, reader.string(root, "<root>", "backend"));

  if (auto it = root.find("parameters"); it != root.end()) {
    if (!it->is_array())
      return reader.error("parameters",
                          absl::StrCat("expected an array, got ", Reader::describe(*it)));
    for (size_t i = 0; i < it->size(); ++i) {
      const Json& pair = (*it)[i];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() || !pair[1].is_string())
        return reader.error(
            absl::StrCat("parameters[", i, "]"),
            absl::StrCat("expected [\"name\", \"value\"], got ", Reader::describe(pair)));
      metadata.parameters.emplace_back(pair[0].get<std::string>(), pair[1].get<std::string>());
    }
  }

  TJ_ASSIGN_OR_RETURN(const Json* args, reader.field(root, "<root>", "args"));
  if (!args->is_array())
    return reader.error("args", absl::StrCat("expected an array, got ", Reader::describe(*args)));
  for (size_t i = 0; i < args->size(); ++i) {
    TJ_ASSIGN_OR_RETURN(ArgSpec arg, parseArg(reader, (*args)[i], absl::StrCat("args[", i, "]")));
    metadata.args.push_back(std::move(arg));
  }

  TJ_ASSIGN_OR_RETURN(const Json* grid, reader.field(root, "<root>", "grid"));
  if (!grid->is_array() || grid->size() != 3)
    return reader.error(
        "grid", absl::StrCat("expected an array of 3 expressions, got ", Reader::describe(*grid)));
  for (int i = 0; i < 3; ++i) {
    if (!(*grid)[i].is_string())
      return reader.error(absl::StrCat("grid[", i, "]"),
                          absl::StrCat("expected a string, got ", Reader::describe((*grid)[i])));
    metadata.grid[i] = (*grid)[i].get<std::string>();
  }
  TJ_ASSIGN_OR_RETURN(metadata.threadsPerProgram,
                      reader.integer(root, "<root>", "threads_per_program"));
  if (metadata.threadsPerProgram < 1)
    return reader.error("threads_per_program",
                        absl::StrCat("must be at least 1, got ", metadata.threadsPerProgram));
  TJ_ASSIGN_OR_RETURN(metadata.dynamicSharedBytes,
                      reader.integer(root, "<root>", "dynamic_shared_bytes", 0));
  TJ_ASSIGN_OR_RETURN(metadata.vectorBytes, reader.integer(root, "<root>", "vector_bytes", 16));
  if (metadata.vectorBytes < 1)
    return reader.error("vector_bytes",
                        absl::StrCat("must be at least 1, got ", metadata.vectorBytes));
  TJ_ASSIGN_OR_RETURN(metadata.waitsForPreviousKernel,
                      reader.boolean(root, "<root>", "waits_for_previous_kernel", false));
  TJ_ASSIGN_OR_RETURN(metadata.clusterPrograms,
                      reader.integer(root, "<root>", "cluster_programs", 1));
  if (metadata.clusterPrograms < 1)
    return reader.error("cluster_programs",
                        absl::StrCat("must be at least 1, got ", metadata.clusterPrograms));

  if (auto it = root.find("resources"); it != root.end()) {
    if (!it->is_object())
      return reader.error("resources",
                          absl::StrCat("expected an object, got ", Reader::describe(*it)));
    ResourceUsage& usage = metadata.resources;
    TJ_ASSIGN_OR_RETURN(usage.registers, reader.integer(*it, "resources", "registers", -1));
    TJ_ASSIGN_OR_RETURN(usage.spillStores, reader.integer(*it, "resources", "spill_stores", 0));
    TJ_ASSIGN_OR_RETURN(usage.spillLoads, reader.integer(*it, "resources", "spill_loads", 0));
    TJ_ASSIGN_OR_RETURN(usage.staticSharedBytes,
                        reader.integer(*it, "resources", "static_shared_bytes", 0));
    TJ_ASSIGN_OR_RETURN(usage.localBytes, reader.integer(*it, "resources", "local_bytes", 0));
  }
  return metadata;
}

}  // namespace

absl::StatusOr<KernelMetadata> parseMetadata(std::string_view json) {
  Json root;
  try {
    root = Json::parse(json.begin(), json.end());
  } catch (const Json::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat("kernel metadata is not valid JSON: ", error.what()));
  }
  // Accessors used below do not throw on the checked types, but keep the API exception-free
  // even if a future field is read carelessly.
  try {
    return parseRoot(root);
  } catch (const Json::exception& error) {
    return absl::InvalidArgumentError(absl::StrCat("kernel metadata: ", error.what()));
  }
}

}  // namespace tilejit
