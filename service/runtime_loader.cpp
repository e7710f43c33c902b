#include "service/runtime_loader.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "runtime/kernel_metadata.h"
#include "support/status.h"

namespace tilejit::service {

absl::StatusOr<std::unique_ptr<LoadedKernel>> loadFromService(ServiceClient& client,
                                                              Device& device,
                                                              CompileRequest request,
                                                              ServiceLoadInfo* info) {
  auto start = std::chrono::steady_clock::now();
  if (request.target.empty()) request.target = device.target();
  TJ_ASSIGN_OR_RETURN(CompileReply reply, client.compile(request));
  TJ_ASSIGN_OR_RETURN(CacheEntry entry, verifiedEntry(reply));
  TJ_ASSIGN_OR_RETURN(KernelMetadata metadata, parseMetadata(entry.metadataJson));
  if (metadata.target != device.target())
    return absl::FailedPreconditionError(absl::StrCat(
        "the compile service built ", request.templateRef, " for target ", metadata.target,
        ", but ", device.name(), " runs ", device.target()));
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<LoadedKernel> kernel, device.load(metadata, entry.binary));
  if (info) {
    info->key = reply.key;
    info->tier = reply.tier;
    info->serverSeconds = reply.serverSeconds;
    info->totalSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return kernel;
}

}  // namespace tilejit::service
