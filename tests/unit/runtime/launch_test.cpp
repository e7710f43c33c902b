#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>

#include "runtime/device.h"

// Counts heap allocations made by the current thread while `tCountAllocations` is set, to
// check that Device::launch never allocates on its success path.
namespace {
thread_local bool tCountAllocations = false;
std::atomic<int64_t> gAllocations{0};

void* countedAllocate(size_t bytes) {
  if (tCountAllocations) ++gAllocations;
  void* pointer = std::malloc(bytes ? bytes : 1);
  if (!pointer) throw std::bad_alloc();
  return pointer;
}
}  // namespace

void* operator new(size_t bytes) { return countedAllocate(bytes); }
void* operator new[](size_t bytes) { return countedAllocate(bytes); }
void operator delete(void* pointer) noexcept { std::free(pointer); }
void operator delete[](void* pointer) noexcept { std::free(pointer); }
void operator delete(void* pointer, size_t) noexcept { std::free(pointer); }
void operator delete[](void* pointer, size_t) noexcept { std::free(pointer); }

namespace tilejit {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class FakeKernel : public LoadedKernel {
 public:
  FakeKernel(KernelMetadata metadata, std::array<GridExpression, 3> grid)
      : LoadedKernel(std::move(metadata), std::move(grid)) {}
};

// Records what launchPacked receives, in fixed storage so that recording does not allocate.
class FakeDevice : public Device {
 public:
  std::string name() const override { return "fake"; }
  std::string target() const override { return "fake"; }
  absl::StatusOr<std::unique_ptr<LoadedKernel>> load(const KernelMetadata& metadata,
                                                     std::string_view) override {
    absl::StatusOr<std::array<GridExpression, 3>> grid = parseGrid(metadata);
    if (!grid.ok()) return grid.status();
    return std::unique_ptr<LoadedKernel>(std::make_unique<FakeKernel>(metadata, *grid));
  }
  absl::StatusOr<void*> allocate(size_t) override { return absl::UnimplementedError("fake"); }
  absl::Status free(void*) override { return absl::OkStatus(); }
  absl::Status copyToDevice(void*, const void*, size_t) override { return absl::OkStatus(); }
  absl::Status copyToHost(void*, const void*, size_t) override { return absl::OkStatus(); }
  absl::Status synchronize() override { return absl::OkStatus(); }
  absl::StatusOr<std::vector<double>> time(const std::function<absl::Status()>&, int,
                                           int) override {
    return absl::UnimplementedError("fake");
  }

  int launches = 0;
  int64_t grid[3] = {};
  std::array<unsigned char, 4096> packed{};
  size_t packedSize = 0;
  Stream stream = nullptr;

 protected:
  absl::Status launchPacked(const LoadedKernel&, const int64_t launchGrid[3],
                            const void* packedArgs, size_t size, Stream launchStream) override {
    ++launches;
    std::copy(launchGrid, launchGrid + 3, grid);
    std::memcpy(packed.data(), packedArgs, size);
    packedSize = size;
    stream = launchStream;
    return absl::OkStatus();
  }
};

ArgSpec view(std::string name, DType dtype, std::vector<DimSpec> dims, bool contiguous = false) {
  ArgSpec spec;
  spec.name = std::move(name);
  spec.dtype = dtype;
  spec.dims = std::move(dims);
  spec.contiguous = contiguous;
  return spec;
}

ArgSpec scalar(std::string name, DType dtype) {
  ArgSpec spec;
  spec.name = std::move(name);
  spec.kind = ArgSpec::Kind::kScalar;
  spec.dtype = dtype;
  return spec;
}

KernelMetadata reshapeAndCache() {
  KernelMetadata metadata;
  metadata.templateName = "reshape_and_cache";
  metadata.entry = "tj_reshape_and_cache";
  metadata.target = "fake";
  metadata.backend = "fake";
  metadata.parameters = {{"head_size", "128"}, {"block_size", "16"}, {"num_kv_heads", "8"}};
  metadata.args = {
      view("key", DType::kBF16, {{"num_tokens"}, {"", 8}, {"", 128}}, /*contiguous=*/true),
      view("value", DType::kBF16, {{"num_tokens"}, {"", 8}, {"", 128}}),
      view("key_cache", DType::kBF16, {{"num_blocks"}, {"", 16}, {"", 8}, {"", 128}}),
      view("value_cache", DType::kBF16, {{"num_blocks"}, {"", 16}, {"", 8}, {"", 128}}),
      view("slot_mapping", DType::kI64, {{"num_tokens"}}),
  };
  metadata.grid = {"num_tokens", "1", "1"};
  metadata.vectorBytes = 16;
  return metadata;
}

void* fakePointer(uintptr_t address) { return reinterpret_cast<void*>(address); }

class LaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<LoadedKernel>> loaded = device.load(reshapeAndCache(), "");
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    kernel = *std::move(loaded);
  }

  // A valid argument list for `tokens` tokens and `blocks` cache blocks.
  std::vector<KernelArg> validArgs(int64_t tokens = 32, int64_t blocks = 100) {
    return {TensorArg::contiguous(fakePointer(0x10000), DType::kBF16, {tokens, 8, 128}),
            TensorArg::contiguous(fakePointer(0x20000), DType::kBF16, {tokens, 8, 128}),
            TensorArg::contiguous(fakePointer(0x30000), DType::kBF16, {blocks, 16, 8, 128}),
            TensorArg::contiguous(fakePointer(0x40000), DType::kBF16, {blocks, 16, 8, 128}),
            TensorArg::contiguous(fakePointer(0x50000), DType::kI64, {tokens})};
  }

  std::string launchError(const std::vector<KernelArg>& args) {
    absl::Status status = device.launch(*kernel, args);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(device.launches, 0);
    return std::string(status.message());
  }

  FakeDevice device;
  std::unique_ptr<LoadedKernel> kernel;
};

TEST_F(LaunchTest, ValidLaunchComputesGridAndPacks) {
  int stream = 0;
  ASSERT_TRUE(device.launch(*kernel, validArgs(), &stream).ok());
  EXPECT_EQ(device.launches, 1);
  EXPECT_EQ(device.grid[0], 32);
  EXPECT_EQ(device.grid[1], 1);
  EXPECT_EQ(device.grid[2], 1);
  EXPECT_EQ(device.stream, &stream);
  // 4 rank-3/4 views and one rank-1 view: (1+6)+(1+6)+(1+8)+(1+8)+(1+2) slots.
  EXPECT_EQ(device.packedSize, 8u * (7 + 7 + 9 + 9 + 3));
}

TEST_F(LaunchTest, WrongNumberOfArguments) {
  std::vector<KernelArg> args = validArgs();
  args.resize(3, args[0]);
  EXPECT_EQ(launchError(args),
            "wrong number of arguments: got 3, the kernel 'reshape_and_cache' takes 5 (key, "
            "value, key_cache, value_cache, slot_mapping)");
}

TEST_F(LaunchTest, DtypeMismatch) {
  std::vector<KernelArg> args = validArgs();
  args[0].tensor.dtype = DType::kF16;
  EXPECT_EQ(launchError(args),
            "argument 'key' (#1): dtype f16 does not match the signature's bf16");
}

TEST_F(LaunchTest, RankMismatch) {
  std::vector<KernelArg> args = validArgs();
  args[4] = TensorArg::contiguous(fakePointer(0x50000), DType::kI64, {32, 1});
  EXPECT_THAT(launchError(args),
              AllOf(HasSubstr("argument 'slot_mapping' (#5): rank 2 (shape [32, 1])"),
                    HasSubstr("signature's rank 1 (a i64 view [num_tokens])")));
}

TEST_F(LaunchTest, RankAboveRuntimeLimit) {
  std::vector<KernelArg> args = validArgs();
  args[4] = TensorArg::contiguous(fakePointer(0x50000), DType::kI64, {1, 1, 1, 1, 1, 1, 32});
  EXPECT_THAT(launchError(args), HasSubstr("rank 7"));
}

TEST_F(LaunchTest, FixedExtentMismatch) {
  std::vector<KernelArg> args = validArgs();
  args[0] = TensorArg::contiguous(fakePointer(0x10000), DType::kBF16, {32, 8, 64});
  EXPECT_THAT(launchError(args), AllOf(HasSubstr("argument 'key' (#1) dim 2 is 64 but must be 128"),
                                       HasSubstr("the kernel was specialized for head_size=128")));
  // 8 is num_kv_heads's value only; 16 is block_size's.
  args = validArgs();
  args[2] = TensorArg::contiguous(fakePointer(0x30000), DType::kBF16, {100, 32, 8, 128});
  EXPECT_THAT(launchError(args),
              AllOf(HasSubstr("argument 'key_cache' (#3) dim 1 is 32 but must be 16"),
                    HasSubstr("block_size=16")));
}

TEST_F(LaunchTest, ShapeSymbolInconsistent) {
  std::vector<KernelArg> args = validArgs();
  args[1] = TensorArg::contiguous(fakePointer(0x20000), DType::kBF16, {16, 8, 128});
  EXPECT_EQ(launchError(args),
            "shape symbol 'num_tokens' is 32 in argument 'key' dim 0 but 16 in argument 'value' "
            "dim 0");
}

TEST_F(LaunchTest, InnermostStrideMustBeOne) {
  std::vector<KernelArg> args = validArgs();
  args[1].tensor.strides[2] = 2;
  EXPECT_THAT(launchError(args),
              HasSubstr("argument 'value' (#2): innermost stride is 2 but must be 1"));
}

TEST_F(LaunchTest, ContiguousViewsMustBeDense) {
  std::vector<KernelArg> args = validArgs();
  args[0].tensor.strides[0] = 8 * 136;  // padded rows: fine for `value`, not for `key`
  EXPECT_THAT(launchError(args),
              AllOf(HasSubstr("argument 'key' (#1) must be contiguous but dim 0 has stride 1088"),
                    HasSubstr("has 1024")));
  args = validArgs();
  args[1].tensor.strides[0] = 8 * 136;
  EXPECT_TRUE(device.launch(*kernel, args).ok());
}

TEST_F(LaunchTest, ExtentOneDimensionsMayHaveAnyStride) {
  std::vector<KernelArg> args = validArgs(/*tokens=*/1);
  args[0].tensor.strides[0] = 12345 * 8;  // never multiplied by a non-zero index
  EXPECT_TRUE(device.launch(*kernel, args).ok());
}

TEST_F(LaunchTest, NullDataOnNonEmptyView) {
  std::vector<KernelArg> args = validArgs();
  args[3].tensor.data = nullptr;
  EXPECT_THAT(launchError(args),
              HasSubstr("argument 'value_cache' (#4): data pointer is null but the view has "
                        "1638400 elements"));
}

TEST_F(LaunchTest, EmptyGridIsANoOp) {
  std::vector<KernelArg> args = validArgs(/*tokens=*/0);
  args[0].tensor.data = nullptr;  // empty views may be null
  EXPECT_TRUE(device.launch(*kernel, args).ok());
  EXPECT_EQ(device.launches, 0);
}

TEST_F(LaunchTest, MisalignedDataPointer) {
  std::vector<KernelArg> args = validArgs();
  args[2].tensor.data = fakePointer(0x30008);
  EXPECT_THAT(launchError(args),
              AllOf(HasSubstr("argument 'key_cache' (#3): data pointer 0x30008 is not a multiple "
                              "of 16 bytes"),
                    HasSubstr("innermost extent is a multiple of 16 bytes")));
}

TEST_F(LaunchTest, MisalignedOuterStride) {
  std::vector<KernelArg> args = validArgs();
  args[1].tensor.strides[0] = 8 * 128 + 4;  // 2056 bytes: not a multiple of 16
  EXPECT_THAT(launchError(args),
              HasSubstr("argument 'value' (#2) dim 0: stride 1028 elements (2056 bytes) is not "
                        "a multiple of 16 bytes"));
}

TEST_F(LaunchTest, GridExpressionErrors) {
  KernelMetadata metadata = reshapeAndCache();
  metadata.grid[1] = "sub(num_tokens, 100)";
  metadata.grid[2] = "div(8, sub(num_blocks, 100))";
  std::unique_ptr<LoadedKernel> negative = *device.load(metadata, "");
  absl::Status status = device.launch(*negative, validArgs(32, 200));
  EXPECT_THAT(status.message(),
              HasSubstr("grid y 'sub(num_tokens, 100)' is negative (-68) for these shapes"));
  status = device.launch(*negative, validArgs(200, 100));
  EXPECT_THAT(status.message(),
              HasSubstr("grid z 'div(8, sub(num_blocks, 100))' is undefined for these shapes"));
  EXPECT_EQ(device.launches, 0);
}

TEST(Launch, ScalarChecksAndPackingLayout) {
  KernelMetadata metadata;
  metadata.templateName = "layout";
  metadata.args = {view("x", DType::kF32, {{"n"}, {"", 3}}), scalar("scale", DType::kF32),
                   scalar("count", DType::kI64), scalar("eps", DType::kF64),
                   view("y", DType::kI32, {{"n"}})};
  metadata.grid = {"cdiv(n, 2)", "2", "1"};
  FakeDevice device;
  std::unique_ptr<LoadedKernel> kernel = *device.load(metadata, "");

  // Innermost extent 3 x 4 bytes is not a multiple of 16: no alignment is required.
  TensorArg x = TensorArg::contiguous(fakePointer(0x1004), DType::kF32, {5, 3});
  TensorArg y = TensorArg::contiguous(fakePointer(0x2000), DType::kI32, {5});
  std::vector<KernelArg> args = {x, ScalarArg::f32(0.5f), ScalarArg::i64(-7),
                                 ScalarArg{DType::kF64, 0.25, 0}, y};
  ASSERT_TRUE(device.launch(*kernel, args).ok());
  EXPECT_EQ(device.grid[0], 3);
  EXPECT_EQ(device.grid[1], 2);
  ASSERT_EQ(device.packedSize, 8u * (5 + 1 + 1 + 1 + 3));
  int64_t slots[11];
  std::memcpy(slots, device.packed.data(), sizeof(slots));
  EXPECT_EQ(slots[0], 0x1004);
  EXPECT_EQ(slots[1], 5);  // extents
  EXPECT_EQ(slots[2], 3);
  EXPECT_EQ(slots[3], 3);  // strides
  EXPECT_EQ(slots[4], 1);
  float scale;
  std::memcpy(&scale, device.packed.data() + 5 * 8, 4);
  EXPECT_EQ(scale, 0.5f);
  EXPECT_EQ(slots[5] >> 32, 0) << "the upper half of an f32 slot is zero";
  EXPECT_EQ(slots[6], -7);
  double eps;
  std::memcpy(&eps, device.packed.data() + 7 * 8, 8);
  EXPECT_EQ(eps, 0.25);
  EXPECT_EQ(slots[8], 0x2000);
  EXPECT_EQ(slots[9], 5);
  EXPECT_EQ(slots[10], 1);

  args[1] = ScalarArg::i64(1);
  EXPECT_EQ(device.launch(*kernel, args).message(),
            "argument 'scale' (#2): scalar dtype i64 does not match the signature's f32");
  args[1] = y;
  EXPECT_THAT(
      device.launch(*kernel, args).message(),
      HasSubstr("argument 'scale' (#2): the signature takes a f32 scalar but got a tensor"));
  args[1] = ScalarArg::f32(0.5f);
  args[0] = ScalarArg::f32(0.5f);
  EXPECT_THAT(
      device.launch(*kernel, args).message(),
      HasSubstr("argument 'x' (#1): the signature takes a f32 view [n, 3] but got a scalar"));
}

TEST(Launch, ArgumentBlockLimit) {
  KernelMetadata metadata;
  metadata.templateName = "wide";
  for (int i = 0; i < 40; ++i)
    metadata.args.push_back(view("v" + std::to_string(i), DType::kF32,
                                 {{"", 1}, {"", 1}, {"", 1}, {"", 1}, {"", 1}, {"", 1}}));
  FakeDevice device;
  std::unique_ptr<LoadedKernel> kernel = *device.load(metadata, "");
  std::vector<KernelArg> args(
      40, TensorArg::contiguous(fakePointer(0x1000), DType::kF32, {1, 1, 1, 1, 1, 1}));
  EXPECT_THAT(device.launch(*kernel, args).message(),
              HasSubstr("needs 4160 bytes of arguments; the limit is 4096"));
}

TEST_F(LaunchTest, SuccessPathDoesNotAllocate) {
  std::vector<KernelArg> args = validArgs();
  ASSERT_TRUE(device.launch(*kernel, args).ok());

  // The counter works: an allocation on this thread is seen.
  tCountAllocations = true;
  delete new int(1);
  tCountAllocations = false;
  ASSERT_EQ(gAllocations.exchange(0), 1);

  tCountAllocations = true;
  absl::Status status;
  for (int i = 0; i < 100 && status.ok(); ++i) status = device.launch(*kernel, args);
  tCountAllocations = false;
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(gAllocations.exchange(0), 0);
  EXPECT_EQ(device.launches, 101);
}

TEST(TensorArg, ContiguousStrides) {
  TensorArg arg = TensorArg::contiguous(nullptr, DType::kF16, {2, 3, 4});
  EXPECT_EQ(arg.rank, 3);
  EXPECT_EQ(arg.strides[0], 12);
  EXPECT_EQ(arg.strides[1], 4);
  EXPECT_EQ(arg.strides[2], 1);
}

}  // namespace
}  // namespace tilejit
