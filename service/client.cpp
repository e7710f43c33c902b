#include "service/client.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "cache/cache_key.h"
#include "support/status.h"

namespace tilejit::service {
namespace {

constexpr char kReplyPayloadUrl[] = "tilejit.service/daemon-reply";

absl::Status transportError(const std::string& socketPath, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat("compile service at '", socketPath,
                                                  "': ", status.message()));
}

}  // namespace

absl::StatusOr<ServiceClient> ServiceClient::connect(const std::string& socketPath) {
  TJ_ASSIGN_OR_RETURN(UniqueFd fd, connectToUnixSocket(socketPath));
  return ServiceClient(std::move(fd), socketPath);
}

absl::StatusOr<Frame> ServiceClient::exchangeRaw(std::string_view bytes,
                                                 std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  TJ_RETURN_IF_ERROR(writeBytes(fd_.get(), bytes, deadline));
  return readFrame(fd_.get(), kMaxReplyBytes, deadline);
}

absl::StatusOr<std::string> ServiceClient::request(FrameType type, std::string_view payload,
                                                   FrameType expected,
                                                   std::chrono::milliseconds timeout) {
  absl::StatusOr<Frame> reply = exchangeRaw(encodeFrame(type, payload), timeout);
  if (!reply.ok()) {
    if (absl::IsCancelled(reply.status()))
      return transportError(socketPath_, absl::UnavailableError("the daemon closed the connection"));
    return transportError(socketPath_, reply.status());
  }
  if (reply->header.version != kProtocolVersion)
    return transportError(socketPath_, absl::FailedPreconditionError(absl::StrCat(
                                           "the daemon replied in protocol version ",
                                           reply->header.version, "; this client speaks ",
                                           kProtocolVersion)));
  if (reply->header.type == uint16_t(FrameType::kError)) {
    absl::Status status = decodeError(reply->payload);
    status.SetPayload(kReplyPayloadUrl, absl::Cord("1"));
    return status;
  }
  if (reply->header.type != uint16_t(expected))
    return transportError(socketPath_, absl::InternalError(absl::StrCat(
                                           "the daemon replied with frame type ",
                                           reply->header.type, ", expected ", uint16_t(expected))));
  return std::move(reply->payload);
}

absl::StatusOr<CompileReply> ServiceClient::compile(const CompileRequest& compileRequest) {
  TJ_ASSIGN_OR_RETURN(std::string payload,
                      request(FrameType::kCompile, encodeCompileRequest(compileRequest),
                              FrameType::kCompileOk, kCompileReplyTimeout));
  absl::StatusOr<CompileReply> reply = decodeCompileReply(payload);
  if (!reply.ok()) return transportError(socketPath_, reply.status());
  return reply;
}

absl::StatusOr<std::string> ServiceClient::health() {
  TJ_ASSIGN_OR_RETURN(std::string payload,
                      request(FrameType::kHealth, "", FrameType::kHealthOk, kQuickReplyTimeout));
  return decodeText(payload);
}

absl::StatusOr<std::string> ServiceClient::metrics() {
  TJ_ASSIGN_OR_RETURN(std::string payload,
                      request(FrameType::kMetrics, "", FrameType::kMetricsOk, kQuickReplyTimeout));
  return decodeText(payload);
}

bool isServiceReply(const absl::Status& status) {
  return status.GetPayload(kReplyPayloadUrl).has_value();
}

absl::StatusOr<CacheEntry> verifiedEntry(const CompileReply& reply) {
  if (!isWellFormedCacheKey(reply.key))
    return absl::DataLossError(
        absl::StrCat("the compile service sent a malformed cache key '", reply.key, "'"));
  absl::StatusOr<CacheEntry> entry = decodeEntry(reply.entry, reply.key);
  if (!entry.ok())
    return absl::DataLossError(absl::StrCat("the compile service's entry for ", reply.key,
                                            " failed verification: ", entry.status().message()));
  return entry;
}

}  // namespace tilejit::service
