// tilejitd: the node's compile service (service/README.md).
//   tilejitd [--socket PATH] [--jobs N] [--cache-dir DIR] [--manifest FILE]
//            [--max-request-bytes N] [--memory-bytes N]
//   tilejitd --health | --metrics [--socket PATH]    ask the running daemon
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cache/disk_cache.h"
#include "service/client.h"
#include "service/compile_service.h"
#include "service/server.h"
#include "service/service_environment.h"

namespace tilejit::service {
namespace {

constexpr const char* kUsage = R"(usage: tilejitd [options]            serve compile requests on a Unix socket
       tilejitd --health | --metrics [--socket PATH]   ask the running daemon
  --socket PATH            the socket (default: $TILEJIT_SERVICE_SOCKET, else
                           $XDG_RUNTIME_DIR/tilejit/tilejitd.sock, else tilejitd.sock in the cache dir)
  --jobs N                 compile workers (default: the hardware threads)
  --cache-dir DIR          the disk cache compiled kernels are written to (default: as the JIT's,
                           $TILEJIT_CACHE_DIR ...); Redis from TILEJIT_REDIS_URL as for the JIT
  --manifest FILE          pre-warm every kernel of an AOT manifest (tilejit aot's format) at start
  --max-request-bytes N    the largest request frame accepted (default 16M)
  --memory-bytes N         the memory tier's bound (default 512M)
)";

ServiceServer* gServer = nullptr;

void onSignal(int) {
  if (gServer) gServer->stop();
}

int usageError(const std::string& message) {
  std::fprintf(stderr, "tilejitd: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

int askDaemon(const std::string& socket, bool metrics) {
  absl::StatusOr<ServiceClient> client = ServiceClient::connect(socket);
  absl::StatusOr<std::string> text =
      !client.ok() ? client.status() : metrics ? client->metrics() : client->health();
  if (!text.ok()) {
    std::fprintf(stderr, "tilejitd: %s\n", std::string(text.status().message()).c_str());
    return 1;
  }
  std::fputs(text->c_str(), stdout);
  return 0;
}

int run(int argc, char** argv) {
  CompileServiceOptions serviceOptions;
  ServerOptions serverOptions;
  std::string ask;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    auto bytes = [&](int64_t* out) {
      std::string text;
      if (!value(&text)) return false;
      absl::StatusOr<int64_t> parsed = parseByteCount(text);
      if (!parsed.ok() || *parsed <= 0) return false;
      *out = *parsed;
      return true;
    };
    int64_t number = 0;
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (flag == "--health" || flag == "--metrics") {
      ask = flag;
    } else if (flag == "--socket") {
      if (!value(&serverOptions.socketPath)) return usageError("--socket needs a path");
    } else if (flag == "--cache-dir") {
      if (!value(&serviceOptions.jit.cache.directory)) return usageError("--cache-dir needs a path");
    } else if (flag == "--manifest") {
      if (!value(&serviceOptions.manifestPath)) return usageError("--manifest needs a file");
    } else if (flag == "--jobs") {
      std::string text;
      int jobs = 0;
      if (!value(&text) || !absl::SimpleAtoi(text, &jobs) || jobs < 1 || jobs > 1024)
        return usageError(absl::StrCat("--jobs takes a count from 1 to 1024, got '", text, "'"));
      serviceOptions.jobs = jobs;
    } else if (flag == "--max-request-bytes") {
      if (!bytes(&number) || number > int64_t(UINT32_MAX))
        return usageError("--max-request-bytes takes a byte count (e.g. 16M) up to 4G");
      serverOptions.maxRequestBytes = uint32_t(number);
    } else if (flag == "--memory-bytes") {
      if (!bytes(&serviceOptions.memoryBytes))
        return usageError("--memory-bytes takes a byte count (e.g. 512M)");
    } else {
      return usageError(absl::StrCat("unknown argument '", flag, "'"));
    }
  }
  if (serverOptions.socketPath.empty()) {
    absl::StatusOr<std::string> path = serviceSocketPathFromEnvironment();
    if (!path.ok()) return usageError(std::string(path.status().message()));
    serverOptions.socketPath = *path;
  }
  if (!ask.empty()) return askDaemon(serverOptions.socketPath, ask == "--metrics");
  if (!serviceOptions.jit.cache.directory.empty()) {
    // --cache-dir takes the rest of the cache configuration from the environment too.
    std::vector<std::string> warnings;
    DiskCacheOptions fromEnvironment = jitCacheOptionsFromEnvironment(&warnings);
    fromEnvironment.directory = serviceOptions.jit.cache.directory;
    serviceOptions.jit.cache = std::move(fromEnvironment);
  }

  ::signal(SIGPIPE, SIG_IGN);
  absl::StatusOr<std::unique_ptr<CompileService>> service = CompileService::create(serviceOptions);
  if (!service.ok()) {
    std::fprintf(stderr, "tilejitd: %s\n", std::string(service.status().message()).c_str());
    return 1;
  }
  ServiceServer server(**service, serverOptions);
  if (absl::Status listening = server.listen(); !listening.ok()) {
    std::fprintf(stderr, "tilejitd: %s\n", std::string(listening.message()).c_str());
    return 1;
  }
  if (!serviceOptions.manifestPath.empty()) {
    if (absl::Status prewarm = (*service)->startPrewarm(serviceOptions.manifestPath, stderr);
        !prewarm.ok()) {
      std::fprintf(stderr, "tilejitd: %s\n", std::string(prewarm.message()).c_str());
      return 1;
    }
  }
  gServer = &server;
  struct sigaction action = {};
  action.sa_handler = onSignal;
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
  std::fprintf(stderr, "tilejitd: serving on %s\n", serverOptions.socketPath.c_str());
  server.serve();
  gServer = nullptr;
  std::fprintf(stderr, "tilejitd: stopped\n");
  return 0;
}

}  // namespace
}  // namespace tilejit::service

int main(int argc, char** argv) { return tilejit::service::run(argc, argv); }
