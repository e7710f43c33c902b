// Runs on a machine with an NVIDIA GPU; elsewhere every test skips with the reason.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "compiler/toolchains/toolchain.h"
#include "runtime/backends/cuda/cuda_driver.h"
#include "runtime/device.h"

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Kernel ABI for (View<float, 1> data, f32 scale): data[i] = data[i] * scale + i. Programs
// along y split the elements into halves, so the y axis of the launch is exercised too. The
// dynamic shared buffer is touched so that a >48 KiB request has to be honoured.
// Self-contained like the device library: nvrtc has no standard headers of its own.
constexpr char kAxpySource[] = R"(
using int64_t = long long;
struct Args {
  float* data; int64_t shape[1]; int64_t stride[1];
  alignas(8) float scale;
};
__device__ __forceinline__ void axpy(const Args& args, float* scratch, float zero) {
  int64_t n = args.shape[0];
  int64_t half = (n + 1) / 2;
  int64_t i = int64_t(blockIdx.y) * half + int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  scratch[threadIdx.x] = float(i);
  __syncthreads();
  if (i < n && i < int64_t(blockIdx.y + 1) * half)
    args.data[i * args.stride[0]] = args.data[i * args.stride[0]] * args.scale +
                                    scratch[threadIdx.x] + zero;
}
extern "C" __global__ void __launch_bounds__(128) tj_axpy(const Args args) {
  extern __shared__ float scratch[];
  axpy(args, scratch, 0.0f);
}
// The same with 12 KB of static shared memory in front of the dynamic buffer.
extern "C" __global__ void __launch_bounds__(128) tj_axpy_static(const Args args) {
  extern __shared__ float scratch[];
  __shared__ float fixed[3072];
  fixed[threadIdx.x * 24] = 0.0f;
  __syncthreads();
  axpy(args, scratch, fixed[((threadIdx.x + 1) % 128) * 24]);
}
)";

class CudaDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Device>> created = createCudaDevice();
    if (!created.ok()) GTEST_SKIP() << created.status().message();
    device = *std::move(created);
    absl::StatusOr<const TargetDescription*> target = lookupTarget(device->target());
    if (!target.ok()) GTEST_SKIP() << "no target description: " << target.status().message();
    absl::StatusOr<std::unique_ptr<Toolchain>> toolchain = createToolchain(**target);
    if (!toolchain.ok()) GTEST_SKIP() << toolchain.status().message();
    CompileRequest request;
    request.source = kAxpySource;
    request.sourceName = "axpy.cu";
    request.entry = "tj_axpy";
    absl::StatusOr<CompileResult> compiled = (*toolchain)->compile(request);
    ASSERT_TRUE(compiled.ok()) << compiled.status();
    binary = compiled->binary;
  }

  KernelMetadata axpyMetadata(int64_t dynamicSharedBytes = 512) {
    KernelMetadata metadata;
    metadata.templateName = "axpy";
    metadata.entry = "tj_axpy";
    metadata.target = device->target();
    metadata.backend = "cuda";
    metadata.args = {{"data", ArgSpec::Kind::kView, DType::kF32, {{"n"}}},
                     {"scale", ArgSpec::Kind::kScalar, DType::kF32, {}}};
    metadata.grid = {"cdiv(cdiv(n, 2), 128)", "2", "1"};
    metadata.threadsPerProgram = 128;
    metadata.dynamicSharedBytes = dynamicSharedBytes;
    return metadata;
  }

  std::vector<float> randomData(int64_t n, unsigned seed) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> data(n);
    for (float& value : data) value = uniform(generator);
    return data;
  }

  void expectAxpy(const std::vector<float>& input, const std::vector<float>& output, float scale) {
    ASSERT_EQ(input.size(), output.size());
    // The GPU may contract the multiply-add into an FMA: allow the one rounding it saves.
    for (size_t i = 0; i < input.size(); ++i) {
      float expected = input[i] * scale + float(i);
      ASSERT_NEAR(output[i], expected, 1e-6f * std::max(1.0f, std::fabs(expected)))
          << "element " << i;
    }
  }

  // One launch of a loaded axpy over n random values, checked.
  void expectAxpyRuns(const LoadedKernel& kernel, int64_t n, unsigned seed, float scale) {
    std::vector<float> input = randomData(n, seed);
    void* buffer = *device->allocate(n * sizeof(float));
    ASSERT_TRUE(device->copyToDevice(buffer, input.data(), n * sizeof(float)).ok());
    absl::Status launched = device->launch(
        kernel, {TensorArg::contiguous(buffer, DType::kF32, {n}), ScalarArg::f32(scale)});
    ASSERT_TRUE(launched.ok()) << launched;
    ASSERT_TRUE(device->synchronize().ok());
    std::vector<float> output(n);
    ASSERT_TRUE(device->copyToHost(output.data(), buffer, n * sizeof(float)).ok());
    expectAxpy(input, output, scale);
    EXPECT_TRUE(device->free(buffer).ok());
  }

  std::unique_ptr<Device> device;
  std::string binary;
};

TEST_F(CudaDeviceTest, CompilesLoadsAndLaunches) {
  EXPECT_THAT(device->name(), HasSubstr("(" + device->target() + ")"));
  const int64_t n = 100003;
  std::vector<float> input = randomData(n, 1);
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->load(axpyMetadata(), binary);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  void* buffer = *device->allocate(n * sizeof(float));
  ASSERT_TRUE(device->copyToDevice(buffer, input.data(), n * sizeof(float)).ok());
  ASSERT_TRUE(device
                  ->launch(**kernel,
                           {TensorArg::contiguous(buffer, DType::kF32, {n}), ScalarArg::f32(1.5f)})
                  .ok());
  ASSERT_TRUE(device->synchronize().ok());
  std::vector<float> output(n);
  ASSERT_TRUE(device->copyToHost(output.data(), buffer, n * sizeof(float)).ok());
  expectAxpy(input, output, 1.5f);

  absl::StatusOr<std::vector<double>> times = device->time(
      [&] {
        return device->launch(
            **kernel, {TensorArg::contiguous(buffer, DType::kF32, {n}), ScalarArg::f32(1.0f)});
      },
      2, 5);
  ASSERT_TRUE(times.ok()) << times.status();
  ASSERT_EQ(times->size(), 5u);
  for (double milliseconds : *times) EXPECT_GT(milliseconds, 0);
  EXPECT_TRUE(device->free(buffer).ok());
}

TEST_F(CudaDeviceTest, LargeDynamicSharedMemory) {
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel =
      device->load(axpyMetadata(100 * 1024), binary);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  expectAxpyRuns(**kernel, 4096, 2, -2.0f);
}

// Static plus dynamic shared memory past 48 KB with a dynamic part under it: the opt-in must
// count the binary's static part even where the metadata lacks it (an nvrtc cache hit prints
// no ptxas log; the launch then failed with CUDA_ERROR_INVALID_VALUE).
TEST_F(CudaDeviceTest, StaticSharedMemoryCountsTowardTheOptIn) {
  KernelMetadata metadata = axpyMetadata(40 * 1024);
  metadata.entry = "tj_axpy_static";
  metadata.resources.staticSharedBytes = 0;
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->load(metadata, binary);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  expectAxpyRuns(**kernel, 4096, 3, 0.5f);
  // Past what the device allows in all, the load says so.
  KernelMetadata tooLarge = axpyMetadata(device->target() == "sm_90" ? 220 * 1024 : 160 * 1024);
  tooLarge.entry = "tj_axpy_static";
  EXPECT_THAT(device->load(tooLarge, binary).status().message(),
              HasSubstr("bytes of shared memory"));
}

TEST_F(CudaDeviceTest, GraphCaptureReplaysWithNewData) {
  absl::StatusOr<cuda::CudaStream> stream = cuda::CudaStream::create();
  ASSERT_TRUE(stream.ok()) << stream.status();
  const int64_t n = 10000;
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->load(axpyMetadata(), binary);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  void* buffer = *device->allocate(n * sizeof(float));
  std::vector<float> poison(n, std::numeric_limits<float>::quiet_NaN());
  ASSERT_TRUE(device->copyToDevice(buffer, poison.data(), n * sizeof(float)).ok());

  ASSERT_TRUE(stream->beginCapture().ok());
  absl::Status captured = device->launch(
      **kernel, {TensorArg::contiguous(buffer, DType::kF32, {n}), ScalarArg::f32(3.0f)},
      stream->handle());
  absl::StatusOr<cuda::CudaGraph> graph = stream->endCapture();
  ASSERT_TRUE(captured.ok()) << captured;
  ASSERT_TRUE(graph.ok()) << graph.status();

  // Capturing ran nothing: the buffer still holds the poison.
  std::vector<float> output(n);
  ASSERT_TRUE(device->copyToHost(output.data(), buffer, n * sizeof(float)).ok());
  EXPECT_TRUE(std::isnan(output[0]));

  for (unsigned round = 0; round < 2; ++round) {
    std::vector<float> input = randomData(n, 10 + round);
    ASSERT_TRUE(device->copyToDevice(buffer, input.data(), n * sizeof(float)).ok());
    ASSERT_TRUE(graph->launch(stream->handle()).ok());
    ASSERT_TRUE(stream->synchronize().ok());
    ASSERT_TRUE(device->copyToHost(output.data(), buffer, n * sizeof(float)).ok());
    expectAxpy(input, output, 3.0f);
  }
  EXPECT_TRUE(device->free(buffer).ok());
}

TEST_F(CudaDeviceTest, GridLimitsAndDriverErrors) {
  KernelMetadata metadata = axpyMetadata();
  metadata.grid[1] = "n";
  absl::StatusOr<std::unique_ptr<LoadedKernel>> kernel = device->load(metadata, binary);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  void* buffer = *device->allocate(70000 * sizeof(float));
  absl::Status launched = device->launch(
      **kernel, {TensorArg::contiguous(buffer, DType::kF32, {70000}), ScalarArg::f32(1.0f)});
  EXPECT_THAT(launched.message(),
              AllOf(HasSubstr("grid y 'n' is 70000"), HasSubstr("allows at most 65535")));
  EXPECT_TRUE(device->free(buffer).ok());

  absl::StatusOr<std::unique_ptr<LoadedKernel>> garbage =
      device->load(axpyMetadata(), std::string(256, 'x'));
  ASSERT_FALSE(garbage.ok());
  EXPECT_THAT(garbage.status().message(), AllOf(HasSubstr("cuModuleLoadData failed: CUDA_ERROR_")));

  // A kernel compiled for clusters of 2 along z (the reserved parameter cluster_size) refuses
  // a grid z that is no multiple of 2 before the driver sees it, and an unreadable size.
  metadata = axpyMetadata();
  metadata.clusterPrograms = 2;
  metadata.grid[2] = "3";
  kernel = device->load(metadata, binary);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  buffer = *device->allocate(256 * sizeof(float));
  launched = device->launch(**kernel, {TensorArg::contiguous(buffer, DType::kF32, {256}), ScalarArg::f32(1.0f)});
  EXPECT_THAT(launched.message(), AllOf(HasSubstr("grid z '3' is 3"),
                                        HasSubstr("runs in clusters of 2 programs along z")));
  EXPECT_TRUE(device->free(buffer).ok());
  metadata.clusterPrograms = 0;
  EXPECT_THAT(device->load(metadata, binary).status().message(), HasSubstr("has cluster_size '0'"));

  metadata = axpyMetadata();
  metadata.entry = "tj_missing";
  absl::StatusOr<std::unique_ptr<LoadedKernel>> missing = device->load(metadata, binary);
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(),
              AllOf(HasSubstr("kernel 'tj_missing' not found"), HasSubstr("CUDA_ERROR_NOT_FOUND")));
}

}  // namespace
}  // namespace tilejit
