#include "compiler/embedded_files.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilejit {

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> deviceLibraryHeaders(
    std::string_view backend) {
  std::vector<std::pair<std::string, std::string>> headers;
  if (const char* override = std::getenv("TILEJIT_DEVICE_LIB_DIR")) {
    std::filesystem::path root = std::filesystem::path(override) / std::string(backend);
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(root, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      if (!it->is_regular_file() || it->path().extension() != ".h") continue;
      std::ifstream in(it->path(), std::ios::binary);
      std::stringstream content;
      content << in.rdbuf();
      headers.emplace_back(std::filesystem::relative(it->path(), root).string(), content.str());
    }
    if (error || headers.empty())
      return absl::NotFoundError(absl::StrCat("TILEJIT_DEVICE_LIB_DIR=", override, ": no headers under ",
                                              root.string()));
    std::sort(headers.begin(), headers.end());
    return headers;
  }
  std::string prefix = absl::StrCat("device/", std::string(backend), "/");
  for (const EmbeddedFile& file : embeddedFiles()) {
    std::string path(file.path);
    if (absl::StartsWith(path, prefix))
      headers.emplace_back(path.substr(prefix.size()), std::string(file.content));
  }
  if (headers.empty())
    return absl::NotFoundError(absl::StrCat("no device library for backend '", std::string(backend),
                                            "' in this build"));
  return headers;
}

std::vector<std::string> shippedTemplateNames() {
  std::vector<std::string> names;
  for (const EmbeddedFile& file : embeddedFiles()) {
    std::string path(file.path);
    if (path.find('/') == std::string::npos && absl::EndsWith(path, ".mlir"))
      names.push_back(path.substr(0, path.size() - 5));
  }
  return names;
}

absl::StatusOr<std::string> shippedTemplate(std::string_view name) {
  std::string path = absl::StrCat(std::string(name), ".mlir");
  for (const EmbeddedFile& file : embeddedFiles())
    if (file.path == path) return std::string(file.content);
  return absl::NotFoundError(absl::StrCat("no shipped template '", std::string(name),
                                          "'; shipped templates: ",
                                          absl::StrJoin(shippedTemplateNames(), ", ")));
}

}  // namespace tilejit
