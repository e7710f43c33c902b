#include "compiler/compile_service_route.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "compiler/jit_compiler.h"
#include "service/client.h"

namespace tilejit {

CompileServiceRoute::CompileServiceRoute(service::CompileServiceMode mode, std::string socketPath,
                                         std::function<void(const std::string&)> warningSink)
    : mode_(mode), socketPath_(std::move(socketPath)), warningSink_(std::move(warningSink)) {}

absl::StatusOr<std::optional<CacheEntry>> CompileServiceRoute::unavailable(
    const absl::Status& why) {
  if (mode_ == service::CompileServiceMode::kRequired)
    return absl::UnavailableError(absl::StrCat(
        "TILEJIT_COMPILE_SERVICE=required, but the compile service cannot serve: ",
        why.message(), " (start tilejitd, or set TILEJIT_COMPILE_SERVICE=auto to compile "
        "in-process when it is absent)"));
  if (!warned_.exchange(true)) {
    std::string message = absl::StrCat("tilejit: ", why.message(),
                                       "; compiling in-process (TILEJIT_COMPILE_SERVICE=auto; "
                                       "said once per process)");
    if (warningSink_) warningSink_(message);
    else std::fprintf(stderr, "%s\n", message.c_str());
  }
  return std::optional<CacheEntry>();
}

absl::StatusOr<std::optional<CacheEntry>> CompileServiceRoute::fetch(const KernelSpec& spec,
                                                                     const std::string& localKey,
                                                                     CacheSource* source) {
  if (socketPath_.empty())
    return unavailable(absl::FailedPreconditionError(
        "no socket path for the compile service (set TILEJIT_SERVICE_SOCKET)"));
  // The text, not the name: the daemon compiles exactly what this process would.
  service::CompileRequest request;
  request.kind = service::TemplateKind::kSourceText;
  request.templateRef = spec.templateText;
  request.sourceName = spec.sourceName;
  request.target = spec.target;
  for (const auto& [name, value] : spec.parameters) request.parameters.emplace_back(name, value.text());

  absl::StatusOr<service::ServiceClient> client = service::ServiceClient::connect(socketPath_);
  if (!client.ok()) return unavailable(client.status());
  absl::StatusOr<service::CompileReply> reply = client->compile(request);
  if (!reply.ok()) {
    if (service::isServiceReply(reply.status())) return reply.status();
    return unavailable(reply.status());
  }
  if (reply->key != localKey)
    return unavailable(absl::FailedPreconditionError(absl::StrCat(
        "the compile service at '", socketPath_, "' keys this kernel ", reply->key,
        " where this process keys it ", localKey,
        " (a daemon of another tilejit build, device library or toolchain)")));
  absl::StatusOr<CacheEntry> entry = service::verifiedEntry(*reply);
  if (!entry.ok()) return unavailable(entry.status());
  switch (reply->tier) {
    case service::ServedTier::kMemory: *source = CacheSource::kMemory; break;
    case service::ServedTier::kDisk: *source = CacheSource::kDisk; break;
    case service::ServedTier::kFleet: *source = CacheSource::kFleet; break;
    case service::ServedTier::kCompiled: *source = CacheSource::kComputed; break;
  }
  return std::optional<CacheEntry>(std::move(*entry));
}

}  // namespace tilejit
