// A real tilejitd for the service tests: started from build/bin on a socket in a private
// scratch directory with its own cache, stopped with SIGTERM (or killed) by the test.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "../cache/cache_test_util.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "service/client.h"

namespace tilejit::testing {

inline std::string tilejitdBinary() { return std::string(TILEJIT_BINARY_DIR) + "/bin/tilejitd"; }

// Runs tilejitd with `arguments` to its exit (for starts that must fail); its output in `log`.
inline int runTilejitdToExit(const std::vector<std::string>& arguments, const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<std::string> all = {tilejitdBinary()};
    all.insert(all.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (std::string& argument : all) argv.push_back(argument.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // A start that should have failed but serves is killed after 10 s: -1, not a hung test.
  int status = 0;
  for (int i = 0; i < 500 && ::waitpid(pid, &status, WNOHANG) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (::waitpid(pid, &status, WNOHANG) == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class DaemonProcess {
 public:
  DaemonProcess(std::string socketPath, std::string cacheDirectory, std::string logPath)
      : socketPath_(std::move(socketPath)),
        cacheDirectory_(std::move(cacheDirectory)),
        logPath_(std::move(logPath)) {}
  ~DaemonProcess() { kill(); }

  // Empty on success, else why it is not serving (with its log).
  std::string start(const std::vector<std::string>& extraArguments = {}) {
    std::vector<std::string> arguments = {tilejitdBinary(), "--socket", socketPath_,
                                          "--cache-dir", cacheDirectory_};
    arguments.insert(arguments.end(), extraArguments.begin(), extraArguments.end());
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
      int log = ::open(logPath_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      ::dup2(log, 1);
      ::dup2(log, 2);
      ::unsetenv("TILEJIT_COMPILE_SERVICE");
      std::vector<char*> argv;
      for (std::string& argument : arguments) argv.push_back(argument.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    for (int i = 0; i < 500; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return absl::StrCat("tilejitd exited with ", exitCode_, ": ", readFile(logPath_));
      }
      auto client = service::ServiceClient::connect(socketPath_);
      if (client.ok() && client->health().ok()) return "";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "tilejitd did not answer within 10 s: " + readFile(logPath_);
  }

  // SIGTERM, then the exit code (or 128 + signal).
  int stop() {
    if (pid_ <= 0) return exitCode_;
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return exitCode_;
  }
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  bool alive() const { return pid_ > 0 && ::kill(pid_, 0) == 0; }

  service::ServiceClient client() const {
    auto client = service::ServiceClient::connect(socketPath_);
    if (!client.ok()) throw std::runtime_error(std::string(client.status().message()));
    return std::move(*client);
  }

  // One sample of the daemon's metrics: `name{labels}` -> value (-1 when absent).
  double metric(const std::string& series) const {
    absl::StatusOr<std::string> text = client().metrics();
    if (!text.ok()) return -2;
    for (size_t start = 0; start < text->size();) {
      size_t end = text->find('\n', start);
      if (end == std::string::npos) end = text->size();
      std::string line = text->substr(start, end - start);
      start = end + 1;
      if (line.rfind(series + " ", 0) != 0) continue;
      double value = 0;
      if (absl::SimpleAtod(line.substr(series.size() + 1), &value)) return value;
    }
    return -1;
  }

  const std::string& socketPath() const { return socketPath_; }
  std::string log() const { return readFile(logPath_); }

 private:
  std::string socketPath_, cacheDirectory_, logPath_;
  pid_t pid_ = -1;
  int exitCode_ = -1;
};

// Releases its waiters together once `count` have arrived (C++17 has no std::barrier).
class StartGate {
 public:
  explicit StartGate(int count) : waiting_(count) {}
  void arriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--waiting_ == 0) open_.notify_all();
    open_.wait(lock, [this] { return waiting_ <= 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable open_;
  int waiting_;
};

// A scratch directory with a daemon's socket, cache and log paths inside.
struct DaemonScratch {
  ScratchDirectory directory{"tilejitd"};
  std::string socket() const { return directory / "tilejitd.sock"; }
  std::string cache() const { return directory / "cache"; }
  std::string log() const { return directory / "tilejitd.log"; }
  DaemonProcess daemon() const { return DaemonProcess(socket(), cache(), log()); }
};

// merge_attn_states for the CPU with `headsPerProgram` (1..32, powers of 2): a new key each.
inline service::CompileRequest mergeRequest(int headsPerProgram) {
  service::CompileRequest request;
  request.templateRef = "merge_attn_states";
  request.target = "host";
  request.parameters = {{"head_size", "64"},
                        {"heads_per_program", std::to_string(headsPerProgram)}};
  return request;
}

}  // namespace tilejit::testing
