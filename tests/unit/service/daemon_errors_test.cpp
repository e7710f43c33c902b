// Bad requests get error replies and never stop tilejitd: malformed frames, a wrong protocol
// version, oversize frames, unknown templates and parameters, and clients that vanish.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include "daemon_test_util.h"

namespace tilejit {
namespace {

using namespace tilejit::testing;
using service::FrameType;

constexpr std::chrono::seconds kTimeout{20};

absl::Status errorReplyOf(const absl::StatusOr<service::Frame>& frame) {
  if (!frame.ok()) return absl::InternalError(absl::StrCat("no reply: ", frame.status().message()));
  if (frame->header.type != uint16_t(FrameType::kError))
    return absl::InternalError(absl::StrCat("reply type ", frame->header.type, ", not an error"));
  return service::decodeError(frame->payload);
}

class TilejitdErrors : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(daemon_.start({"--max-request-bytes", "64K"}), ""); }
  void TearDown() override {
    EXPECT_TRUE(daemon_.alive()) << daemon_.log();
    auto health = daemon_.client().health();
    EXPECT_TRUE(health.ok()) << "the daemon stopped answering: " << health.status();
  }
  DaemonScratch scratch_;
  DaemonProcess daemon_ = scratch_.daemon();
};

TEST_F(TilejitdErrors, BadMagicIsAnErrorReply) {
  absl::Status status = errorReplyOf(daemon_.client().exchangeRaw("GET /metrics HTTP/1.1\r\n", kTimeout));
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_NE(status.message().find("magic"), std::string::npos) << status;
  EXPECT_EQ(daemon_.metric("tilejitd_errors_total{kind=\"malformed\"}"), 1);
}

TEST_F(TilejitdErrors, AnotherProtocolVersionIsRefusedByName) {
  absl::Status status = errorReplyOf(
      daemon_.client().exchangeRaw(service::encodeFrame(FrameType::kHealth, "", 2), kTimeout));
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_NE(status.message().find("protocol version 2"), std::string::npos) << status;
  EXPECT_NE(status.message().find("speaks version 1"), std::string::npos) << status;
  EXPECT_EQ(daemon_.metric("tilejitd_errors_total{kind=\"version\"}"), 1);
}

TEST_F(TilejitdErrors, AnOversizeFrameIsRefusedBeforeItIsRead) {
  // The header claims 1 GiB; nothing more is sent: the daemon must answer without reading it.
  std::string header = service::encodeFrame(FrameType::kCompile, "");
  header[8] = 0, header[9] = 0, header[10] = 0, header[11] = 0x40;
  absl::Status status = errorReplyOf(daemon_.client().exchangeRaw(header, kTimeout));
  EXPECT_TRUE(absl::IsResourceExhausted(status)) << status;
  EXPECT_NE(status.message().find("1073741824 bytes exceeds the limit of 65536"), std::string::npos)
      << status;
  EXPECT_EQ(daemon_.metric("tilejitd_errors_total{kind=\"oversize\"}"), 1);
}

TEST_F(TilejitdErrors, AMalformedPayloadLeavesTheConnectionUsable) {
  service::ServiceClient client = daemon_.client();
  absl::Status status =
      errorReplyOf(client.exchangeRaw(service::encodeFrame(FrameType::kCompile, "\x01\x05"), kTimeout));
  EXPECT_TRUE(absl::IsInvalidArgument(status)) << status;
  EXPECT_NE(status.message().find("'template'"), std::string::npos) << status;
  status = errorReplyOf(client.exchangeRaw(
      service::encodeFrame(FrameType(77), ""), kTimeout));
  EXPECT_NE(status.message().find("unknown request type 77"), std::string::npos) << status;
  EXPECT_TRUE(client.health().ok()) << "the frames were whole: the connection goes on";
}

TEST_F(TilejitdErrors, UnknownTemplatesTargetsAndParametersAreNamed) {
  service::ServiceClient client = daemon_.client();
  service::CompileRequest request = mergeRequest(1);
  request.templateRef = "no_such_template";
  absl::StatusOr<service::CompileReply> reply = client.compile(request);
  ASSERT_FALSE(reply.ok());
  EXPECT_TRUE(service::isServiceReply(reply.status()));
  EXPECT_NE(reply.status().message().find("no_such_template"), std::string::npos) << reply.status();

  request = mergeRequest(1);
  request.target = "sm_7000";
  reply = client.compile(request);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("sm_7000"), std::string::npos) << reply.status();

  request = mergeRequest(1);
  request.parameters = {{"head_size", "65"}};
  reply = client.compile(request);
  ASSERT_FALSE(reply.ok());
  EXPECT_NE(reply.status().message().find("head_size"), std::string::npos) << reply.status();
  EXPECT_GE(daemon_.metric("tilejitd_errors_total{kind=\"compile\"}"), 3);
}

TEST_F(TilejitdErrors, ClientsThatVanishMidFrameOrMidCompileDoNotStopIt) {
  {  // half a header, then gone
    service::ServiceClient client = daemon_.client();
    ASSERT_EQ(::send(client.fd(), "TJSV\x01", 5, MSG_NOSIGNAL), 5);
  }
  {  // a whole compile request, gone before the reply
    service::ServiceClient client = daemon_.client();
    std::string frame =
        service::encodeFrame(FrameType::kCompile, service::encodeCompileRequest(mergeRequest(2)));
    ASSERT_EQ(::send(client.fd(), frame.data(), frame.size(), MSG_NOSIGNAL), ssize_t(frame.size()));
  }
  // The abandoned compile still finishes and is served to the next client.
  auto reply = daemon_.client().compile(mergeRequest(2));
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(daemon_.metric("tilejitd_compiles_total"), 1);
  for (int i = 0; i < 100 && daemon_.metric("tilejitd_errors_total{kind=\"disconnect\"}") < 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(daemon_.metric("tilejitd_errors_total{kind=\"disconnect\"}"), 1);
}

}  // namespace
}  // namespace tilejit
