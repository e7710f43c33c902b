#include "compiler/embedded_files.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {

namespace {

// The kernel ABI every backend's library shares (tj/abi.h), handed over beside each one.
constexpr std::string_view kCommonFolder = "common";

using Headers = std::vector<std::pair<std::string, std::string>>;

// The `.h` files under `root` by path relative to it; empty when there are none.
absl::StatusOr<Headers> headersOnDisk(const std::filesystem::path& root) {
  Headers headers;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(root, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (!it->is_regular_file() || it->path().extension() != ".h") continue;
    std::ifstream in(it->path(), std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    headers.emplace_back(std::filesystem::relative(it->path(), root).string(), content.str());
  }
  if (error) return absl::NotFoundError(absl::StrCat("cannot read ", root.string(), ": ", error.message()));
  return headers;
}

// The embedded files under device/<folder>/ by path relative to it.
Headers embeddedHeaders(std::string_view folder) {
  Headers headers;
  std::string prefix = absl::StrCat("device/", std::string(folder), "/");
  for (const EmbeddedFile& file : embeddedFiles()) {
    std::string path(file.path);
    if (absl::StartsWith(path, prefix))
      headers.emplace_back(path.substr(prefix.size()), std::string(file.content));
  }
  return headers;
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> deviceLibraryHeaders(
    std::string_view backend) {
  Headers headers;
  if (const char* override = std::getenv("TILEJIT_DEVICE_LIB_DIR")) {
    std::filesystem::path root = std::filesystem::path(override) / std::string(backend);
    absl::StatusOr<Headers> own = headersOnDisk(root);
    if (!own.ok() || own->empty())
      return absl::NotFoundError(absl::StrCat("TILEJIT_DEVICE_LIB_DIR=", override, ": no headers under ",
                                              root.string()));
    headers = *std::move(own);
    // A folder without common/ (one backend's library under edit) takes the embedded one.
    std::filesystem::path commonRoot = std::filesystem::path(override) / std::string(kCommonFolder);
    TJ_ASSIGN_OR_RETURN(Headers common, std::filesystem::is_directory(commonRoot)
                                            ? headersOnDisk(commonRoot)
                                            : absl::StatusOr<Headers>(embeddedHeaders(kCommonFolder)));
    headers.insert(headers.end(), common.begin(), common.end());
    std::sort(headers.begin(), headers.end());
    return headers;
  }
  headers = embeddedHeaders(backend);
  if (headers.empty())
    return absl::NotFoundError(absl::StrCat("no device library for backend '", std::string(backend),
                                            "' in this build"));
  Headers common = embeddedHeaders(kCommonFolder);
  headers.insert(headers.end(), common.begin(), common.end());
  std::sort(headers.begin(), headers.end());
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
