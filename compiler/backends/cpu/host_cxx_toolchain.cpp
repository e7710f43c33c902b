// CPU backend: the host C++ compiler turns the emitted TU into a shared object. It runs as a
// child process in a private temporary directory that holds the TU and the device headers.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "compiler/backends/cpu/host_cxx_toolchain.h"
#include "support/status.h"

extern char** environ;

namespace tilejit {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string>& compileFlags() {
  static const std::vector<std::string> flags = {"-std=c++17", "-O2", "-fPIC", "-shared",
                                                 "-fno-math-errno"};
  return flags;
}

// The absolute path of `program` (a name looked up in PATH, or a path), or empty.
std::string findExecutable(const std::string& program) {
  if (program.empty()) return "";
  if (program.find('/') != std::string::npos)
    return access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  for (absl::string_view directory : absl::StrSplit(path ? path : "/usr/bin:/bin", ':')) {
    std::string candidate = absl::StrCat(directory.empty() ? "." : directory, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// A fresh private directory, removed with everything in it when the owner goes away.
class TempDirectory {
 public:
  static absl::StatusOr<TempDirectory> create() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(base && *base ? base : "/tmp", "/tilejit-cxx-XXXXXX");
    if (!mkdtemp(pattern.data()))
      return absl::UnavailableError(absl::StrCat("mkdtemp(", pattern, "): ", std::strerror(errno)));
    return TempDirectory(pattern);
  }
  TempDirectory(TempDirectory&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  TempDirectory& operator=(TempDirectory&&) = delete;
  ~TempDirectory() {
    if (path_.empty()) return;
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

absl::Status writeFile(const std::string& path, const std::string& content) {
  std::error_code error;
  fs::create_directories(fs::path(path).parent_path(), error);
  if (error)
    return absl::InternalError(
        absl::StrCat("creating the directory of ", path, ": ", error.message()));
  std::ofstream out(path, std::ios::binary);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) return absl::InternalError(absl::StrCat("writing ", path, " failed"));
  return absl::OkStatus();
}

absl::StatusOr<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path));
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
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

struct ProcessResult {
  int exitCode = -1;
  std::string output;  // stdout and stderr interleaved
};

// Runs `argv` in `directory` with stdout+stderr redirected to `logPath`, then reads the log.
absl::StatusOr<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                         const std::string& logPath) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, logPath.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    return absl::UnavailableError(
        absl::StrCat("cannot run ", argv[0], ": ", std::strerror(spawned)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return absl::InternalError(absl::StrCat("waitpid: ", std::strerror(errno)));
  }
  ProcessResult result;
  absl::StatusOr<std::string> output = readFile(logPath);
  if (output.ok()) result.output = *std::move(output);
  if (WIFEXITED(status)) {
    result.exitCode = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.output += absl::StrCat("\n(killed by signal ", WTERMSIG(status), ")");
  }
  return result;
}

// "<path> <first line of --version>", probed once per compiler per process.
absl::StatusOr<std::string> compilerVersion(const std::string& compiler) {
  static std::mutex mutex;
  static std::map<std::string, std::string>* versions = new std::map<std::string, std::string>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = versions->find(compiler); it != versions->end()) return it->second;
  TJ_ASSIGN_OR_RETURN(TempDirectory directory, TempDirectory::create());
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
    TJ_ASSIGN_OR_RETURN(TempDirectory directory, TempDirectory::create());
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
