// A real redis-server for the fleet tier's tests: started on a free 127.0.0.1 port with a
// scratch directory and no persistence, stopped (or killed, paused) by the test. Tests skip
// when redis-server is not installed; scripts/setup.sh installs it, so CI runs them.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cache/redis_client.h"
#include "cache_test_util.h"

namespace tilejit::testing {

// A port nothing listens on right now: the kernel's choice for a socket bound to port 0.
inline int freeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  ::close(fd);
  return port;
}

inline std::string findRedisServer() {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/bin:/usr/sbin:/usr/local/bin";
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string candidate = path.substr(start, end - start) + "/redis-server";
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

class RedisTestServer {
 public:
  RedisTestServer() : directory_("redis") {}
  ~RedisTestServer() { kill(); }

  // Empty on success, else why the server is not running (the test's skip reason).
  std::string start(const std::vector<std::string>& extraArguments = {}) {
    std::string binary = findRedisServer();
    if (binary.empty()) return "redis-server is not installed (scripts/setup.sh installs it)";
    // Another process may take the port between our probe and redis-server's bind: retry.
    for (int attempt = 0; attempt < 3; ++attempt) {
      port_ = freeLoopbackPort();
      std::vector<std::string> arguments = {
          binary,       "--port",       std::to_string(port_), "--bind", "127.0.0.1",
          "--save",     "",             "--appendonly",        "no",     "--dir",
          directory_.path(), "--logfile", directory_ / "redis.log", "--daemonize", "no",
          "--unixsocket", unixSocket(), "--unixsocketperm", "700"};
      arguments.insert(arguments.end(), extraArguments.begin(), extraArguments.end());
      pid_ = ::fork();
      if (pid_ == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive a crashed test
        std::vector<char*> argv;
        for (std::string& argument : arguments) argv.push_back(argument.data());
        argv.push_back(nullptr);
        ::execv(binary.c_str(), argv.data());
        ::_exit(127);
      }
      if (waitUntilServing()) return "";
      kill();
    }
    return "redis-server did not start; see " + (directory_ / "redis.log");
  }

  int port() const { return port_; }
  std::string unixSocket() const { return directory_ / "redis.sock"; }
  RedisEndpoint endpoint() const {
    RedisEndpoint endpoint;
    endpoint.host = "127.0.0.1";
    endpoint.port = port_;
    return endpoint;
  }
  // A connection for the test's own commands (planting entries, reading TTLs).
  std::unique_ptr<RedisConnection> admin() const {
    auto connection = RedisConnection::connect(endpoint(), std::chrono::seconds(2),
                                               std::chrono::seconds(5));
    return connection.ok() ? std::move(*connection) : nullptr;
  }
  void pause() {
    if (pid_ > 0) ::kill(pid_, SIGSTOP);
  }
  void resume() {
    if (pid_ > 0) ::kill(pid_, SIGCONT);
  }
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  bool waitUntilServing() {
    for (int i = 0; i < 250; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      auto connection = RedisConnection::connect(endpoint(), std::chrono::milliseconds(100),
                                                 std::chrono::milliseconds(500));
      if (connection.ok()) {
        auto reply = (*connection)->command({"PING"});
        if (reply.ok() && reply->text == "PONG") return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  ScratchDirectory directory_;
  int port_ = -1;
  pid_t pid_ = -1;
};

}  // namespace tilejit::testing
