// The compile service's wire format (tilejitd over its Unix socket): one frame per request and
// one per reply, in order on a connection. Integers are little-endian; a string is its 4-byte
// length then its bytes. The version field lets a daemon and a client of different releases
// refuse each other with a clear error instead of misreading a frame.
//
//   frame    4 magic "TJSV" | 2 version | 2 type | 4 payload length L | L bytes payload
//   kCompile    1 template kind (0 shipped name, 1 source text) | string template |
//               string source name (diagnostics) | string target | 4 count N |
//               N x (string parameter name, string value)
//   kHealth, kMetrics   empty
//   kCompileOk  string cache key | 1 tier (0 memory, 1 disk, 2 redis, 3 compile) |
//               8 server seconds (IEEE double) | string entry (cache/entry_format.h bytes:
//               checksummed, naming its key)
//   kHealthOk, kMetricsOk   string text (metrics: Prometheus text format 0.0.4)
//   kError      4 absl::StatusCode | string message
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tilejit::service {

inline constexpr char kFrameMagic[4] = {'T', 'J', 'S', 'V'};
inline constexpr uint16_t kProtocolVersion = 1;
inline constexpr size_t kFrameHeaderBytes = 12;
// A request larger than this (a template source of 16 MiB is far past any real one) is
// answered with an error and the connection closed: the daemon never buffers unbounded input.
inline constexpr uint32_t kDefaultMaxRequestBytes = 16u << 20;
// Replies carry code objects; a client accepts up to this.
inline constexpr uint32_t kMaxReplyBytes = 1u << 30;

enum class FrameType : uint16_t {
  kCompile = 1,
  kHealth = 2,
  kMetrics = 3,
  kCompileOk = 0x81,
  kHealthOk = 0x82,
  kMetricsOk = 0x83,
  kError = 0xff,
};

struct FrameHeader {
  uint16_t version = 0;
  uint16_t type = 0;  // a FrameType, unchecked: the receiver decides what it accepts
  uint32_t payloadBytes = 0;
};

enum class TemplateKind : uint8_t { kShippedName = 0, kSourceText = 1 };

struct CompileRequest {
  TemplateKind kind = TemplateKind::kShippedName;
  std::string templateRef;  // a shipped template's name, or the template's text
  std::string sourceName;   // file name for diagnostics; may be empty
  std::string target;       // "sm_90", "host"
  std::vector<std::pair<std::string, std::string>> parameters;  // "name", "value" as text
};

// Where the daemon found what it served.
enum class ServedTier : uint8_t { kMemory = 0, kDisk = 1, kFleet = 2, kCompiled = 3 };
const char* servedTierName(ServedTier tier);  // "memory", "disk", "redis", "compile"

struct CompileReply {
  std::string key;
  ServedTier tier = ServedTier::kCompiled;
  double serverSeconds = 0;
  std::string entry;  // encodeEntry() bytes
};

std::string encodeFrame(FrameType type, std::string_view payload,
                        uint16_t version = kProtocolVersion);
// Checks the magic only; the version and type are the receiver's to judge.
absl::StatusOr<FrameHeader> decodeFrameHeader(std::string_view bytes);

std::string encodeCompileRequest(const CompileRequest& request);
absl::StatusOr<CompileRequest> decodeCompileRequest(std::string_view payload);
std::string encodeCompileReply(const CompileReply& reply);
absl::StatusOr<CompileReply> decodeCompileReply(std::string_view payload);
std::string encodeText(std::string_view text);
absl::StatusOr<std::string> decodeText(std::string_view payload);
// A non-OK status as a kError payload and back (an OK status does not travel).
std::string encodeError(const absl::Status& status);
absl::Status decodeError(std::string_view payload);

}  // namespace tilejit::service
