#include "support/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace tilejit {

namespace fs = std::filesystem;

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

absl::StatusOr<TempDirectory> TempDirectory::create(std::string_view prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = absl::StrCat(base && *base ? base : "/tmp", "/", absl::string_view(prefix.data(), prefix.size()), "-XXXXXX");
  if (!mkdtemp(pattern.data()))
    return absl::UnavailableError(absl::StrCat("mkdtemp(", pattern, "): ", std::strerror(errno)));
  return TempDirectory(pattern);
}

TempDirectory::~TempDirectory() {
  if (path_.empty()) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

absl::Status writeFile(const std::string& path, std::string_view content) {
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
    result.signal = WTERMSIG(status);
    result.output += absl::StrCat("\n(killed by signal ", result.signal, ")");
  }
  return result;
}

}  // namespace tilejit
