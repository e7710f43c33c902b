// CPU backend: the host C++ compiler turns the emitted TU into a shared object. It runs as a
// child process in a private temporary directory that holds the TU and the device headers.
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "compiler/backends/cpu/host_cxx_toolchain.h"
#include "support/process.h"
#include "support/status.h"

namespace tilejit {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& compileFlags() {
  static const std::vector<std::string> flags = {"-std=c++17", "-O2", "-fPIC", "-shared",
                                                 "-fno-math-errno"};
  return flags;
}

// Include names are relative paths inside the temp dir; anything that could escape it is
// refused rather than written.
absl::Status checkIncludeName(const std::string& name) {
  fs::path path(name);
  bool escapes = name.empty() || path.is_absolute();
  for (const fs::path& part : path)
    if (part == "..") escapes = true;
  if (escapes)
    return absl::InvalidArgumentError(
        absl::StrCat("header include name '", name, "' must be a relative path without '..'"));
  return absl::OkStatus();
}

// "<path> <first line of --version>", probed once per compiler per process.
absl::StatusOr<std::string> compilerVersion(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string>* versions = new std::map<std::string, std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = versions->find(compiler); it != versions->end()) return it->second;
  TJ_ASSIGN_OR_RETURN(TempDirectory directory, TempDirectory::create("tilejit-cxx"));
  TJ_ASSIGN_OR_RETURN(ProcessResult probe,
                      runProcess({compiler, "--version"}, directory.path() + "/version.txt"));
  if (probe.exitCode != 0)
    return absl::UnavailableError(
        absl::StrCat(compiler, " --version failed (exit ", probe.exitCode, "): ", probe.output));
  std::string firstLine = probe.output.substr(0, probe.output.find('\n'));
  return versions->emplace(compiler, firstLine).first->second;
}

class HostCxxToolchain : public Toolchain {
 public:
  HostCxxToolchain(std::string compiler, std::string version)
      : compiler_(std::move(compiler)), version_(std::move(version)) {}

  std::string identity() const override {
    return absl::StrCat(compiler_, " (", version_, ") ", absl::StrJoin(compileFlags(), " "));
  }

  absl::StatusOr<CompileResult> compile(const CompileRequest& request) const override {
    auto start = std::chrono::steady_clock::now();
    TJ_ASSIGN_OR_RETURN(TempDirectory directory, TempDirectory::create("tilejit-cxx"));
    const std::string& root = directory.path();
    std::string sourceName = request.sourceName.empty() ? "kernel.cpp" : request.sourceName;
    TJ_RETURN_IF_ERROR(checkIncludeName(sourceName));
    for (const auto& [name, content] : request.headers) {
      TJ_RETURN_IF_ERROR(checkIncludeName(name));
      TJ_RETURN_IF_ERROR(writeFile(absl::StrCat(root, "/", name), content));
    }
    std::string sourcePath = absl::StrCat(root, "/", sourceName);
    TJ_RETURN_IF_ERROR(writeFile(sourcePath, request.source));
    std::string outputPath = absl::StrCat(root, "/out.so");

    std::vector<std::string> argv = {compiler_};
    for (const std::string& flag : compileFlags()) argv.push_back(flag);
    // A .cu name or any other extension is still C++ for the host compiler.
    argv.insert(argv.end(), {"-o", outputPath, "-x", "c++", sourcePath, "-x", "none",
                             absl::StrCat("-I", root)});
    TJ_ASSIGN_OR_RETURN(ProcessResult process, runProcess(argv, root + "/compile.log"));

    CompileResult result;
    // Paths inside the temp dir mean nothing after it is gone; show the names the TU used.
    result.log = absl::StrReplaceAll(process.output, {{root + "/", ""}});
    if (process.exitCode != 0)
      return absl::InvalidArgumentError(absl::StrCat("host compiler ", compiler_,
                                                     " failed to compile ", sourceName, " (exit ",
                                                     process.exitCode, "):\n", result.log));
    TJ_ASSIGN_OR_RETURN(result.binary, readFile(outputPath));
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  std::string compiler_;
  std::string version_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Toolchain>> createHostCxxToolchain(
    const TargetDescription& target, const std::vector<std::string>& candidates) {
  std::vector<std::string> tried;
  std::string compiler;
  if (const char* chosen = std::getenv("TILEJIT_HOST_CXX"); chosen && *chosen) {
    compiler = findExecutable(chosen);
    if (compiler.empty())
      return absl::UnavailableError(
          absl::StrCat("TILEJIT_HOST_CXX=", chosen, " is not an executable (looked in PATH)"));
  } else {
    for (const std::string& candidate : candidates) {
      compiler = findExecutable(candidate);
      if (!compiler.empty()) break;
      tried.push_back(candidate);
    }
    if (compiler.empty())
      return absl::UnavailableError(absl::StrCat("no host C++ compiler found in PATH (tried ",
                                                 absl::StrJoin(tried, ", "),
                                                 "); set TILEJIT_HOST_CXX"));
  }
  TJ_ASSIGN_OR_RETURN(std::string version, compilerVersion(compiler));
  return std::unique_ptr<Toolchain>(std::make_unique<HostCxxToolchain>(compiler, version));
}

}  // namespace tilejit
