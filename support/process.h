// Child processes, the private directories they work in and the files they leave there: for
// the tools that run other programs (the host C++ compiler, an author's Python reference).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace tilejit {

// The absolute path of `program` (a name looked up in PATH, or a path), or empty.
std::string findExecutable(const std::string& program);

// A fresh private directory ($TMPDIR, else /tmp), removed with everything in it when the owner
// goes away.
class TempDirectory {
 public:
  // `prefix` names the directory ("tilejit-cxx" -> /tmp/tilejit-cxx-XXXXXX).
  static absl::StatusOr<TempDirectory> create(std::string_view prefix);
  TempDirectory(TempDirectory&& other) noexcept : path_(std::move(other.path_)) {
    other.path_.clear();
  }
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;
  TempDirectory& operator=(TempDirectory&&) = delete;
  ~TempDirectory();
  const std::string& path() const { return path_; }

 private:
  explicit TempDirectory(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Writes `content` to `path`, creating its directory.
absl::Status writeFile(const std::string& path, std::string_view content);
absl::StatusOr<std::string> readFile(const std::string& path);

struct ProcessResult {
  int exitCode = -1;     // -1 where it did not exit (killed by a signal)
  int signal = 0;        // the signal that killed it, or 0
  std::string output;    // stdout and stderr interleaved ("(killed by signal N)" appended)
};

// Runs `argv` (argv[0] a path) with stdin from /dev/null and stdout+stderr redirected to
// `logPath`, waits for it, then reads the log.
absl::StatusOr<ProcessResult> runProcess(const std::vector<std::string>& argv,
                                         const std::string& logPath);

}  // namespace tilejit
