#include "compiler/toolchains/toolchain.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "compiler/toolchains/library_version_memo.h"
#include "compiler/backends/cpu/host_cxx_toolchain.h"
#include "compiler/backends/cuda/nvrtc_toolchain.h"
#include "runtime/device.h"

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// A CPU kernel in the kernel ABI: out[i] = i * scale + offset, where program (x, y) handles
// the elements of block x (64 wide) whose index has parity y. The helper header comes from
// memory, as the device library does.
constexpr char kHelperHeader[] = R"(
#pragma once
#include <cstdint>
namespace helper {
// An inline function with a static local: g++ emits it as STB_GNU_UNIQUE, which makes the
// library impossible to unload (the case the CPU device's memfd naming must survive).
inline int64_t& calls() { static int64_t count = 0; return count; }
}
)";

std::string fillSource(float offset) {
  return R"(
#include "tj/helper.h"
struct Args {
  float* data; int64_t shape[1]; int64_t stride[1];
  alignas(8) float scale;
};
extern "C" void tj_fill(const void* opaque, const int64_t pid[3], const int64_t np[3]) {
  const Args& args = *static_cast<const Args*>(opaque);
  helper::calls()++;
  for (int64_t i = pid[0] * 64; i < (pid[0] + 1) * 64 && i < args.shape[0]; ++i)
    if (i % np[1] == pid[1]) args.data[i * args.stride[0]] = float(i) * args.scale + )" +
         std::to_string(offset) + R"(f;
}
)";
}

KernelMetadata fillMetadata() {
  KernelMetadata metadata;
  metadata.templateName = "fill";
  metadata.entry = "tj_fill";
  metadata.target = "host";
  metadata.backend = "cpu";
  metadata.args = {{"out", ArgSpec::Kind::kView, DType::kF32, {{"n"}}},
                   {"scale", ArgSpec::Kind::kScalar, DType::kF32, {}}};
  metadata.grid = {"cdiv(n, 64)", "2", "1"};
  return metadata;
}

std::unique_ptr<Toolchain> hostToolchain() {
  absl::StatusOr<const TargetDescription*> target = lookupTarget("host");
  EXPECT_TRUE(target.ok());
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createToolchain(**target);
  EXPECT_TRUE(toolchain.ok()) << toolchain.status();
  return toolchain.ok() ? *std::move(toolchain) : nullptr;
}

CompileRequest fillRequest(float offset) {
  CompileRequest request;
  request.source = fillSource(offset);
  request.sourceName = "fill.cpp";
  request.entry = "tj_fill";
  request.headers = {{"tj/helper.h", kHelperHeader}};
  return request;
}

// Compiles, loads and runs the fill kernel over `n` elements; returns the output.
std::vector<float> runFill(Device& device, const Toolchain& toolchain, float offset, int64_t n) {
  absl::StatusOr<CompileResult> compiled = toolchain.compile(fillRequest(offset));
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  if (!compiled.ok()) return {};
  EXPECT_GT(compiled->seconds, 0);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      device.load(fillMetadata(), compiled->binary);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok()) return {};
  std::vector<float> out(n, -1.0f);  // poisoned: every element must be written
  absl::Status launched = device.launch(
      **kernel, {TensorArg::contiguous(out.data(), DType::kF32, {n}), ScalarArg::f32(0.5f)});
  EXPECT_TRUE(launched.ok()) << launched;
  return out;
}

TEST(HostCxxToolchain, CompilesAndRunsOverAGrid) {
  std::unique_ptr<Toolchain> toolchain = hostToolchain();
  ASSERT_TRUE(toolchain);
  std::unique_ptr<Device> device = createCpuDevice();
  const int64_t n = 1000;  // 16 x 2 programs, the last block partial
  std::vector<float> out = runFill(*device, *toolchain, 3.0f, n);
  ASSERT_EQ(out.size(), size_t(n));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(out[i], float(i) * 0.5f + 3.0f) << "element " << i;
}

TEST(HostCxxToolchain, LoadsManyDistinctObjects) {
  // Each kernel stays resident after unloading (STB_GNU_UNIQUE); a later object reusing the
  // same /proc/self/fd path must still be the new one, not the resident old one.
  std::unique_ptr<Toolchain> toolchain = hostToolchain();
  ASSERT_TRUE(toolchain);
  std::unique_ptr<Device> device = createCpuDevice();
  for (int round = 0; round < 3; ++round) {
    std::vector<float> out = runFill(*device, *toolchain, float(round), 70);
    ASSERT_EQ(out.size(), 70u);
    EXPECT_EQ(out[69], 69 * 0.5f + round) << "round " << round;
  }
}

TEST(HostCxxToolchain, SyntaxErrorReportsTheCompilerMessage) {
  std::unique_ptr<Toolchain> toolchain = hostToolchain();
  ASSERT_TRUE(toolchain);
  CompileRequest request = fillRequest(0);
  request.source += "\nint broken( {\n";
  absl::StatusOr<CompileResult> compiled = toolchain->compile(request);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(compiled.status().message(), AllOf(HasSubstr("failed to compile fill.cpp"),
                                                 HasSubstr("fill.cpp:"), HasSubstr("error")));
}

TEST(HostCxxToolchain, RefusesHeadersOutsideItsDirectory) {
  std::unique_ptr<Toolchain> toolchain = hostToolchain();
  ASSERT_TRUE(toolchain);
  CompileRequest request = fillRequest(0);
  request.headers.push_back({"../escape.h", ""});
  EXPECT_THAT(toolchain->compile(request).status().message(),
              HasSubstr("must be a relative path without '..'"));
}

TEST(HostCxxToolchain, IdentityNamesCompilerVersionAndFlags) {
  std::unique_ptr<Toolchain> toolchain = hostToolchain();
  ASSERT_TRUE(toolchain);
  EXPECT_THAT(toolchain->identity(), AllOf(HasSubstr("/"), HasSubstr("-std=c++17 -O2 -fPIC"),
                                           HasSubstr("-fno-math-errno")));
}

TEST(Toolchain, AmdTargetsGetTheHipBackendsToolchain) {
  absl::StatusOr<const TargetDescription*> target = lookupTarget("gfx942");
  ASSERT_TRUE(target.ok());
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createToolchain(**target);
  ASSERT_TRUE(toolchain.ok()) << toolchain.status();
  EXPECT_THAT((*toolchain)->identity(), HasSubstr("--offload-arch=gfx942"));
}

std::unique_ptr<Toolchain> nvrtcToolchain(std::string* whyNot) {
  absl::StatusOr<const TargetDescription*> target = lookupTarget("sm_90");
  if (!target.ok()) {
    *whyNot = std::string(target.status().message());
    return nullptr;
  }
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createToolchain(**target);
  if (!toolchain.ok()) {
    *whyNot = std::string(toolchain.status().message());
    return nullptr;
  }
  return *std::move(toolchain);
}

TEST(NvrtcToolchain, CompilesForSm90AndReportsRegisters) {
  std::string whyNot;
  std::unique_ptr<Toolchain> toolchain = nvrtcToolchain(&whyNot);
  if (!toolchain) GTEST_SKIP() << whyNot;
  EXPECT_THAT(toolchain->identity(),
              AllOf(StartsWith("nvrtc "), HasSubstr("--gpu-architecture=sm_90")));
  CompileRequest request;
  request.sourceName = "scale.cu";
  request.entry = "tj_scale";
  request.headers = {
      {"tj/factor.h", "#pragma once\n__device__ inline float factor() { return 2.0f; }\n"}};
  request.source = R"(
#include "tj/factor.h"
extern "C" __global__ void tj_scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= factor();
}
)";
  absl::StatusOr<CompileResult> compiled = toolchain->compile(request);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ASSERT_GE(compiled->binary.size(), 4u);
  EXPECT_EQ(compiled->binary.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_GT(compiled->resources.registers, 0) << compiled->log;
  EXPECT_EQ(compiled->resources.spillStores, 0);
  EXPECT_THAT(compiled->intermediate, HasSubstr(".entry tj_scale"));
  EXPECT_NE(compiled->intermediate.back(), '\0');
  // nvrtc omits the ptxas lines when it serves a CUBIN from its cache; the CUBIN itself
  // still carries the counts, and both sources must agree when both are present.
  ResourceUsage fromCubin;
  ASSERT_TRUE(readCubinResources(compiled->binary, "tj_scale", fromCubin));
  EXPECT_EQ(fromCubin.registers, compiled->resources.registers);
  EXPECT_EQ(fromCubin.localBytes, compiled->resources.localBytes);
}

TEST(NvrtcToolchain, StackFrameAndRegistersFromLogAndCubinAgree) {
  std::string whyNot;
  std::unique_ptr<Toolchain> toolchain = nvrtcToolchain(&whyNot);
  if (!toolchain) GTEST_SKIP() << whyNot;
  CompileRequest request;
  request.sourceName = "stack.cu";
  request.entry = "tj_stack";
  // A dynamically indexed local array lives on the stack; a second kernel in the same TU
  // must not be mistaken for the entry.
  request.source = R"(
extern "C" __global__ void tj_other(float* x) { x[0] = 1; }
extern "C" __global__ void tj_stack(float* x, int k) {
  float local[512];
  for (int i = 0; i < k; ++i) local[(i * 7) & 511] = x[i * 3 + threadIdx.x];
  x[threadIdx.x] = local[(k + threadIdx.x) & 511];
}
)";
  absl::StatusOr<CompileResult> compiled = toolchain->compile(request);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ResourceUsage fromCubin;
  ASSERT_TRUE(readCubinResources(compiled->binary, "tj_stack", fromCubin));
  EXPECT_GT(fromCubin.registers, 0);
  EXPECT_GE(fromCubin.localBytes, 2048) << compiled->log;
  ResourceUsage fromLog = parsePtxasLog(compiled->log, "tj_stack");
  if (fromLog.registers >= 0) {
    EXPECT_EQ(fromLog.registers, fromCubin.registers) << compiled->log;
    EXPECT_EQ(fromLog.localBytes, fromCubin.localBytes) << compiled->log;
  }
  EXPECT_FALSE(readCubinResources("not an elf", "tj_stack", fromCubin));
}

TEST(NvrtcToolchain, StaticSharedMemoryFromLogAndCubinAgree) {
  // The runtime's opt-in past 48 KB adds static to dynamic shared memory; with the count
  // missing (an nvrtc cache hit prints no ptxas log) it read 0 and the launch failed.
  std::string whyNot;
  std::unique_ptr<Toolchain> toolchain = nvrtcToolchain(&whyNot);
  if (!toolchain) GTEST_SKIP() << whyNot;
  CompileRequest request;
  request.sourceName = "shared.cu";
  request.entry = "tj_shared";
  request.source = R"(
extern "C" __global__ void tj_other(float* x) {
  __shared__ float t[64];
  t[threadIdx.x] = x[0];
  x[1] = t[3];
}
extern "C" __global__ void tj_shared(float* x) {
  __shared__ float s[3000];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[(threadIdx.x * 7) % 3000];
}
)";
  absl::StatusOr<CompileResult> compiled = toolchain->compile(request);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  ResourceUsage fromCubin;
  ASSERT_TRUE(readCubinResources(compiled->binary, "tj_shared", fromCubin));
  EXPECT_EQ(fromCubin.staticSharedBytes, 12000);
  ResourceUsage fromLog = parsePtxasLog(compiled->log, "tj_shared");
  if (fromLog.registers >= 0) EXPECT_EQ(fromLog.staticSharedBytes, 12000) << compiled->log;
  ResourceUsage none;
  ASSERT_TRUE(readCubinResources(compiled->binary, "tj_other", none));
  EXPECT_EQ(none.staticSharedBytes, 256);
}

TEST(NvrtcToolchain, ParsesPtxasLogForTheEntryOnly) {
  const std::string log =
      "ptxas info    : Compiling entry function 'tj_other' for 'sm_90'\n"
      "ptxas info    : Function properties for tj_other\n"
      "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
      "ptxas info    : Used 99 registers, used 0 barriers\n"
      "ptxas info    : Compiling entry function 'tj_main' for 'sm_90'\n"
      "ptxas info    : Function properties for tj_main\n"
      "    16 bytes stack frame, 24 bytes spill stores, 32 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 360 bytes cmem[0]\n";
  ResourceUsage usage = parsePtxasLog(log, "tj_main");
  EXPECT_EQ(usage.registers, 40);
  EXPECT_EQ(usage.localBytes, 16);
  EXPECT_EQ(usage.spillStores, 24);
  EXPECT_EQ(usage.spillLoads, 32);
  EXPECT_EQ(usage.staticSharedBytes, 2048);
}

TEST(NvrtcToolchain, CompileErrorCarriesTheLog) {
  std::string whyNot;
  std::unique_ptr<Toolchain> toolchain = nvrtcToolchain(&whyNot);
  if (!toolchain) GTEST_SKIP() << whyNot;
  CompileRequest request;
  request.sourceName = "broken.cu";
  request.entry = "tj_broken";
  request.source = "extern \"C\" __global__ void tj_broken(float* x) { x[0] = undeclared; }\n";
  absl::StatusOr<CompileResult> compiled = toolchain->compile(request);
  ASSERT_FALSE(compiled.ok());
  EXPECT_EQ(compiled.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(compiled.status().message(), AllOf(HasSubstr("broken.cu"), HasSubstr("undeclared")));
}


// The memo of a vendor library's version (what lets a warm start skip loading libnvrtc).
class LibraryVersionMemo : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/tj_memo_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    library_ = dir_ + "/libfake.so.1";
    writeLibrary("version one");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void writeLibrary(const std::string& bytes) { std::ofstream(library_, std::ios::trunc) << bytes; }
  std::string dir_, library_;
};

TEST_F(LibraryVersionMemo, RecallsWhatWasRemembered) {
  std::string search = librarySearchFingerprint("libfake.so.1");
  std::string memo = memoPathFor(dir_, "fake", search);
  EXPECT_FALSE(recallLibraryVersion(memo, search).has_value());  // nothing recorded yet
  rememberLibraryVersion(memo, search, library_, "13.0");
  EXPECT_EQ(recallLibraryVersion(memo, search), "13.0");
}

TEST_F(LibraryVersionMemo, ForgetsWhenTheLibraryOrTheSearchChanges) {
  std::string search = librarySearchFingerprint("libfake.so.1");
  std::string memo = memoPathFor(dir_, "fake", search);
  rememberLibraryVersion(memo, search, library_, "13.0");
  EXPECT_FALSE(recallLibraryVersion(memo, search + " other").has_value());
  writeLibrary("version two, longer");  // another size and modification time
  EXPECT_FALSE(recallLibraryVersion(memo, search).has_value());
  std::filesystem::remove(library_);
  EXPECT_FALSE(recallLibraryVersion(memo, search).has_value());
}

TEST_F(LibraryVersionMemo, SearchDependsOnLdLibraryPath) {
  const char* saved = getenv("LD_LIBRARY_PATH");
  std::string before = librarySearchFingerprint("libfake.so.1");
  setenv("LD_LIBRARY_PATH", (dir_ + ":/elsewhere").c_str(), 1);
  std::string after = librarySearchFingerprint("libfake.so.1");
  if (saved) setenv("LD_LIBRARY_PATH", saved, 1);
  else unsetenv("LD_LIBRARY_PATH");
  EXPECT_NE(before, after);
  EXPECT_NE(memoPathFor(dir_, "fake", before), memoPathFor(dir_, "fake", after));
}

TEST_F(LibraryVersionMemo, TruncatedMemoIsIgnored) {
  std::string search = librarySearchFingerprint("libfake.so.1");
  std::string memo = memoPathFor(dir_, "fake", search);
  rememberLibraryVersion(memo, search, library_, "13.0");
  std::string text;
  {
    std::ifstream in(memo);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::ofstream(memo, std::ios::trunc) << text.substr(0, text.size() / 2);
  EXPECT_FALSE(recallLibraryVersion(memo, search).has_value());
}

// With a recorded version the nvrtc toolchain is created without libnvrtc (CI has none): its
// identity names the recorded version; loading waits for the first compile.
TEST_F(LibraryVersionMemo, NvrtcToolchainTakesTheRecordedVersion) {
  auto target = lookupTarget("sm_90");
  ASSERT_TRUE(target.ok());
  std::string search = librarySearchFingerprint(
      "libnvrtc.so.13,libnvrtc.so,/usr/local/cuda/lib64/libnvrtc.so.13,"
      "/usr/local/cuda/lib/libnvrtc.so.13");
  rememberLibraryVersion(memoPathFor(dir_, "nvrtc", search), search, library_, "99.7");
  absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createToolchain(**target, dir_);
  ASSERT_TRUE(toolchain.ok()) << toolchain.status();
  EXPECT_THAT((*toolchain)->identity(), StartsWith("nvrtc 99.7 "));
  // Compiling loads the real library: absent, or not 99.7 - either way a clear error.
  CompileRequest request{"extern \"C\" __global__ void k() {}", "k.cu", "k", *target, {}};
  absl::StatusOr<CompileResult> compiled = (*toolchain)->compile(request);
  ASSERT_FALSE(compiled.ok());
  EXPECT_THAT(std::string(compiled.status().message()),
              testing::AnyOf(HasSubstr("NVRTC not found"), HasSubstr("the record is removed")));
}

}  // namespace
}  // namespace tilejit
