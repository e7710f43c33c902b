// tilejit-client: an engine's side of the compile service with nothing but the runtime linked
// (no MLIR, LLVM, nvrtc or compiler; tests/check_no_llvm.sh checks): ask tilejitd for kernels,
// verify and load them, and say how long each took.
//   tilejit-client [--socket PATH] health | metrics
//   tilejit-client [--socket PATH] [--cpu] [--json] [--no-load] [--repeat N]
//                  load (LIST_FILE | -k 'TEMPLATE name=value ...')...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "runtime/device.h"
#include "service/kernel_list.h"
#include "service/runtime_loader.h"
#include "service/service_environment.h"

namespace tilejit::service {
namespace {

constexpr const char* kUsage = R"(usage: tilejit-client [--socket PATH] health | metrics
       tilejit-client [--socket PATH] [--cpu] [--json] [--no-load] [--repeat N]
                      load (LIST_FILE | -k 'TEMPLATE name=value ...')...
  load     asks the daemon for each kernel (one per line of LIST_FILE, or each -k), verifies
           and loads it on this machine's device (the GPU if there is one; --cpu: the CPU) and
           prints each kernel's time from request to loaded, and the tier that served it
  --json   one JSON object instead of the table
  --no-load  ask and verify only (the daemon's round trip), load nothing
  --repeat N ask for the whole list N times over the same connection (default 1)
  --socket the daemon's socket (default: $TILEJIT_SERVICE_SOCKET, else the daemon's default)
)";

int usageError(const std::string& message) {
  std::fprintf(stderr, "tilejit-client: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

int fail(const absl::Status& status) {
  std::fprintf(stderr, "tilejit-client: %s\n", std::string(status.message()).c_str());
  return 1;
}

absl::StatusOr<std::string> readText(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read kernel list '", path, "'"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

struct LoadOptions {
  bool forceCpu = false;
  bool json = false;
  bool noLoad = false;
  int repeat = 1;
};

// The daemon's round trip and the entry's verification, without a device.
absl::Status askOnly(ServiceClient& client, const Device& device, CompileRequest request,
                     ServiceLoadInfo* info) {
  auto start = std::chrono::steady_clock::now();
  if (request.target.empty()) request.target = device.target();
  absl::StatusOr<CompileReply> reply = client.compile(request);
  if (!reply.ok()) return reply.status();
  absl::StatusOr<CacheEntry> entry = verifiedEntry(*reply);
  if (!entry.ok()) return entry.status();
  info->key = reply->key;
  info->tier = reply->tier;
  info->serverSeconds = reply->serverSeconds;
  info->totalSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return absl::OkStatus();
}

int load(const std::string& socket, const std::vector<CompileRequest>& list,
         const LoadOptions& options) {
  bool forceCpu = options.forceCpu, json = options.json;
  std::vector<CompileRequest> requests;
  for (int round = 0; round < options.repeat; ++round)
    requests.insert(requests.end(), list.begin(), list.end());
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<Device> device = forceCpu ? createCpuDevice() : createBestDevice();
  absl::StatusOr<ServiceClient> client = ServiceClient::connect(socket);
  if (!client.ok()) return fail(client.status());
  std::vector<std::unique_ptr<LoadedKernel>> kernels;  // held to the end, as an engine would
  std::string rows;
  std::vector<double> milliseconds;
  for (const CompileRequest& request : requests) {
    ServiceLoadInfo info;
    absl::Status status;
    if (options.noLoad) {
      status = askOnly(*client, *device, request, &info);
    } else {
      absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
          loadFromService(*client, *device, request, &info);
      status = kernel.status();
      if (kernel.ok()) kernels.push_back(std::move(*kernel));
    }
    if (!status.ok())
      return fail(absl::Status(status.code(), absl::StrCat(request.templateRef, ": ",
                                                           status.message())));
    milliseconds.push_back(info.totalSeconds * 1e3);
    if (json)
      absl::StrAppendFormat(&rows, "%s{\"template\": \"%s\", \"tier\": \"%s\", \"ms\": %.4f, "
                            "\"server_ms\": %.4f}", rows.empty() ? "" : ", ", request.templateRef,
                            servedTierName(info.tier), info.totalSeconds * 1e3,
                            info.serverSeconds * 1e3);
    else
      absl::StrAppendFormat(&rows, "%-20s %-8s %10.3f ms  (daemon %.3f ms)  %s\n",
                            request.templateRef, servedTierName(info.tier),
                            info.totalSeconds * 1e3, info.serverSeconds * 1e3,
                            info.key.substr(0, 16));
  }
  double totalMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> sorted = milliseconds;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  if (json) {
    std::printf("{\"device\": \"%s\", \"kernels\": [%s], \"median_ms\": %.4f, \"max_ms\": %.4f, "
                "\"total_ms\": %.4f}\n",
                device->target().c_str(), rows.c_str(), median, sorted.back(), totalMs);
  } else {
    std::fputs(rows.c_str(), stdout);
    std::printf("%zu kernels on %s: median %.3f ms, max %.3f ms per kernel, %.3f ms in all\n",
                milliseconds.size(), device->name().c_str(), median, sorted.back(), totalMs);
  }
  return 0;
}

int run(int argc, char** argv) {
  std::string socket, command;
  LoadOptions options;
  std::vector<CompileRequest> requests;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    if (argument == "--help" || argument == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (argument == "--socket") {
      if (++i >= argc) return usageError("--socket needs a path");
      socket = argv[i];
    } else if (argument == "--cpu") {
      options.forceCpu = true;
    } else if (argument == "--json") {
      options.json = true;
    } else if (argument == "--no-load") {
      options.noLoad = true;
    } else if (argument == "--repeat") {
      if (++i >= argc || !absl::SimpleAtoi(argv[i], &options.repeat) || options.repeat < 1 ||
          options.repeat > 1000000)
        return usageError("--repeat takes a count from 1 to 1000000");
    } else if (command.empty()) {
      command = argument;
      if (command != "health" && command != "metrics" && command != "load")
        return usageError(absl::StrCat("unknown command '", command, "'"));
    } else if (command == "load") {
      std::string text;
      if (argument == "-k") {
        if (++i >= argc) return usageError("-k needs 'TEMPLATE name=value ...'");
        text = argv[i];
      } else {
        absl::StatusOr<std::string> file = readText(argument);
        if (!file.ok()) return fail(file.status());
        text = *file;
      }
      absl::StatusOr<std::vector<CompileRequest>> parsed = parseKernelList(text);
      if (!parsed.ok()) return fail(parsed.status());
      requests.insert(requests.end(), parsed->begin(), parsed->end());
    } else {
      return usageError(absl::StrCat("unexpected argument '", argument, "'"));
    }
  }
  if (command.empty()) return usageError("no command");
  if (socket.empty()) {
    absl::StatusOr<std::string> path = serviceSocketPathFromEnvironment();
    if (!path.ok()) return fail(path.status());
    socket = *path;
  }
  if (command == "load") {
    if (requests.empty()) return usageError("load needs a kernel list or -k");
    return load(socket, requests, options);
  }
  absl::StatusOr<ServiceClient> client = ServiceClient::connect(socket);
  if (!client.ok()) return fail(client.status());
  absl::StatusOr<std::string> text = command == "health" ? client->health() : client->metrics();
  if (!text.ok()) return fail(text.status());
  std::fputs(text->c_str(), stdout);
  return 0;
}

}  // namespace
}  // namespace tilejit::service

int main(int argc, char** argv) { return tilejit::service::run(argc, argv); }
