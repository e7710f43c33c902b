// The wire format on its own: round trips, and every way a payload can lie is an error that
// names the field, never a read past the buffer.
#include "service/protocol.h"

#include <gtest/gtest.h>

namespace tilejit::service {
namespace {

CompileRequest sampleRequest() {
  CompileRequest request;
  request.kind = TemplateKind::kSourceText;
  request.templateRef = "tj.template @t {}";
  request.sourceName = "t.mlir";
  request.target = "sm_90";
  request.parameters = {{"head_size", "128"}, {"dtype", "bf16"}};
  return request;
}

TEST(ServiceProtocol, CompileRequestRoundTrips) {
  absl::StatusOr<CompileRequest> decoded = decodeCompileRequest(encodeCompileRequest(sampleRequest()));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->kind, TemplateKind::kSourceText);
  EXPECT_EQ(decoded->templateRef, "tj.template @t {}");
  EXPECT_EQ(decoded->sourceName, "t.mlir");
  EXPECT_EQ(decoded->target, "sm_90");
  EXPECT_EQ(decoded->parameters, sampleRequest().parameters);
}

TEST(ServiceProtocol, CompileReplyRoundTrips) {
  CompileReply reply{std::string(64, 'a'), ServedTier::kFleet, 0.125, std::string("\0bin\xff", 5)};
  absl::StatusOr<CompileReply> decoded = decodeCompileReply(encodeCompileReply(reply));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->key, reply.key);
  EXPECT_EQ(decoded->tier, ServedTier::kFleet);
  EXPECT_EQ(decoded->serverSeconds, 0.125);
  EXPECT_EQ(decoded->entry, reply.entry);
}

TEST(ServiceProtocol, EveryTruncationIsAnErrorNamingTheField) {
  std::string payload = encodeCompileRequest(sampleRequest());
  for (size_t length = 0; length < payload.size(); ++length) {
    absl::StatusOr<CompileRequest> decoded = decodeCompileRequest(payload.substr(0, length));
    ASSERT_FALSE(decoded.ok()) << "accepted a payload cut at " << length;
    EXPECT_TRUE(absl::IsInvalidArgument(decoded.status()));
    EXPECT_NE(decoded.status().message().find("compile request"), std::string::npos);
  }
  EXPECT_FALSE(decodeCompileRequest(payload + "x").ok()) << "trailing bytes accepted";
}

TEST(ServiceProtocol, LyingLengthsAndCountsAreRefused) {
  std::string payload = encodeCompileRequest(sampleRequest());
  std::string longString = payload;
  longString[1] = '\xff';  // the template's length
  longString[4] = '\x7f';
  absl::StatusOr<CompileRequest> decoded = decodeCompileRequest(longString);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("'template' claims"), std::string::npos)
      << decoded.status();

  CompileRequest none = sampleRequest();
  none.parameters.clear();
  std::string manyParameters = encodeCompileRequest(none);
  manyParameters.replace(manyParameters.size() - 4, 4, std::string("\xff\xff\xff\x0f", 4));
  decoded = decodeCompileRequest(manyParameters);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("parameter count"), std::string::npos);

  std::string badKind = payload;
  badKind[0] = 7;
  EXPECT_FALSE(decodeCompileRequest(badKind).ok());
}

TEST(ServiceProtocol, FrameHeaderChecksTheMagic) {
  std::string frame = encodeFrame(FrameType::kHealth, "", 9);
  absl::StatusOr<FrameHeader> header = decodeFrameHeader(frame);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->version, 9);
  EXPECT_EQ(header->type, uint16_t(FrameType::kHealth));
  EXPECT_EQ(header->payloadBytes, 0u);
  frame[0] = 'X';
  EXPECT_FALSE(decodeFrameHeader(frame).ok());
  EXPECT_FALSE(decodeFrameHeader("TJSV").ok());
}

TEST(ServiceProtocol, ErrorsKeepTheirCodeAndMessage) {
  absl::Status status = decodeError(encodeError(absl::NotFoundError("no template 'x'")));
  EXPECT_TRUE(absl::IsNotFound(status));
  EXPECT_EQ(status.message(), "no template 'x'");
}

}  // namespace
}  // namespace tilejit::service
