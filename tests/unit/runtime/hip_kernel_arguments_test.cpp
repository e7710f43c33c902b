// The check the HIP device runs on every kernel before loading it, against code objects clang
// builds here: the kernel-ABI struct and per-slot parameter lists that match the runtime's
// packing, and ones that do not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "runtime/backends/hip/kernel_arguments.h"
#include "tests/unit/runtime/hip_compile_test.h"

namespace tilejit {
namespace {

using ::testing::HasSubstr;
using namespace tilejit::testing;  // NOLINT: the test helpers

ArgSpec view(const std::string& name, std::vector<std::string> symbols) {
  ArgSpec spec;
  spec.name = name;
  for (std::string& symbol : symbols) spec.dims.push_back({std::move(symbol)});
  return spec;
}

ArgSpec scalar(const std::string& name, DType dtype) {
  ArgSpec spec;
  spec.name = name;
  spec.kind = ArgSpec::Kind::kScalar;
  spec.dtype = dtype;
  return spec;
}

KernelMetadata metadataFor(const std::string& entry, const std::string& target,
                           std::vector<ArgSpec> args) {
  KernelMetadata metadata;
  metadata.templateName = "abi_probe";
  metadata.entry = entry;
  metadata.target = target;
  metadata.backend = "hip";
  metadata.threadsPerProgram = 256;
  metadata.args = std::move(args);
  return metadata;
}

// tj_struct takes the 56-byte struct {q, n, extents[2], strides[2], scale}: as the runtime
// packs a rank-2 view (40 bytes) and two scalars.
std::vector<ArgSpec> structSignature() {
  return {view("q", {"rows", "columns"}), scalar("scale", DType::kF32), scalar("n", DType::kI64)};
}

// tj_lds(float*, const float*, int, double): four slots.
std::vector<ArgSpec> slotSignature() {
  return {view("out", {}), view("in", {}), scalar("n", DType::kI32), scalar("s", DType::kF64)};
}

constexpr const char* kMisplacedKernels = R"(
#define __global__ __attribute__((global))
extern "C" __global__ void tj_pair(int* out, int a, int b) { out[0] = a + b; }
struct alignas(16) Wide { long v[2]; };
extern "C" __global__ void tj_gap(long* out, Wide wide) { out[0] = wide.v[1]; }
)";

class HipKernelArgumentsTest : public ClangTest {
 protected:
  std::string codeObject(const std::string& target, const char* source = kTestKernels) {
    absl::StatusOr<std::string> path =
        compileHip(scratch_.path(), absl::StrCat(target, "_", objects_++), source, target);
    EXPECT_TRUE(path.ok()) << path.status();
    return path.ok() ? fileBytes(*path) : "";
  }

  std::string errorOf(const KernelMetadata& metadata, const std::string& object) {
    absl::StatusOr<AmdKernelDescriptor> kernel = checkHipCodeObject(metadata, object);
    return kernel.ok() ? "ok" : std::string(kernel.status().message());
  }

  int objects_ = 0;
};

TEST_F(HipKernelArgumentsTest, TheKernelAbiStructMatchesOnEveryTarget) {
  for (const char* target : {"gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201"}) {
    const std::string object = codeObject(target);
    absl::StatusOr<AmdKernelDescriptor> kernel =
        checkHipCodeObject(metadataFor("tj_struct", target, structSignature()), object);
    ASSERT_TRUE(kernel.ok()) << target << ": " << kernel.status();
    EXPECT_EQ(kernel->name, "tj_struct");
    EXPECT_EQ(kernel->kernargSegmentSize, 56) << target;
    EXPECT_EQ(errorOf(metadataFor("tj_lds", target, slotSignature()), object), "ok") << target;
  }
}

TEST_F(HipKernelArgumentsTest, AStructOfAnotherSizeIsNamed) {
  const std::string object = codeObject("gfx942");
  std::vector<ArgSpec> rank3 = structSignature();
  rank3[0] = view("q", {"a", "b", "c"});
  EXPECT_EQ(errorOf(metadataFor("tj_struct", "gfx942", rank3), object),
            "kernel 'tj_struct' (template 'abi_probe'): its code object takes 56 bytes of "
            "arguments [argument #1 (by_value, 56 bytes at offset 0)] but the runtime packs 72 "
            "bytes (9 slots) for its signature");
  std::vector<ArgSpec> shorter = structSignature();
  shorter.pop_back();
  EXPECT_THAT(errorOf(metadataFor("tj_struct", "gfx942", shorter), object),
              HasSubstr("takes 56 bytes of arguments [argument #1 (by_value, 56 bytes at offset "
                        "0)] but the runtime packs 48 bytes (6 slots)"));
}

TEST_F(HipKernelArgumentsTest, APerSlotListOfAnotherLengthIsNamed) {
  const std::string object = codeObject("gfx1100");
  std::vector<ArgSpec> three = slotSignature();
  three.pop_back();
  EXPECT_THAT(errorOf(metadataFor("tj_lds", "gfx1100", three), object),
              HasSubstr("kernel 'tj_lds' (template 'abi_probe'): its code object takes 32 bytes "
                        "of arguments [argument #1 (global_buffer, 8 bytes at offset 0); "
                        "argument #2 (global_buffer, 8 bytes at offset 8); argument #3 "
                        "(by_value, 4 bytes at offset 16); argument #4 (by_value, 8 bytes at "
                        "offset 24)] but the runtime packs 24 bytes (3 slots)"));
  std::vector<ArgSpec> withExtents = slotSignature();
  withExtents[1] = view("in", {"n"});
  EXPECT_THAT(errorOf(metadataFor("tj_lds", "gfx1100", withExtents), object),
              HasSubstr("but the runtime packs 48 bytes (6 slots)"));
  std::vector<ArgSpec> scalarFirst = slotSignature();
  scalarFirst[0] = scalar("count", DType::kI64);
  EXPECT_THAT(errorOf(metadataFor("tj_lds", "gfx1100", scalarFirst), object),
              HasSubstr("its code object's argument #1 (global_buffer, 8 bytes at offset 0) is a "
                        "pointer where the runtime packs argument 'count' (a scalar)"));
}

TEST_F(HipKernelArgumentsTest, AnArgumentInsideASlotIsNamed) {
  const std::string object = codeObject("gfx90a", kMisplacedKernels);
  EXPECT_EQ(
      errorOf(metadataFor("tj_pair", "gfx90a",
                          {view("out", {}), scalar("a", DType::kI32), scalar("b", DType::kI32)}),
              object),
      "kernel 'tj_pair' (template 'abi_probe'): its code object's argument #3 (by_value, "
      "4 bytes at offset 12) lies where the runtime packs argument 'a' (a scalar); it "
      "should start at byte 16 (arguments start 8-byte slots)");
  EXPECT_THAT(
      errorOf(metadataFor("tj_gap", "gfx90a",
                          {view("out", {}), scalar("a", DType::kI64), scalar("b", DType::kI64)}),
              object),
      HasSubstr("argument #2 (by_value, 16 bytes at offset 16) lies where the runtime "
                "packs argument 'b' (a scalar); it should start at byte 8"));
}

TEST_F(HipKernelArgumentsTest, TheTargetEntryAndThreadsMustMatch) {
  const std::string object = codeObject("gfx942");
  EXPECT_THAT(errorOf(metadataFor("tj_struct", "gfx90a", structSignature()), object),
              HasSubstr("kernel 'abi_probe': its code object is for amdgcn-amd-amdhsa--gfx942"));
  EXPECT_THAT(errorOf(metadataFor("tj_struct", "gfx90a", structSignature()), object),
              HasSubstr("but its metadata says target gfx90a"));
  EXPECT_EQ(errorOf(metadataFor("tj_absent", "gfx942", structSignature()), object),
            absl::StrCat("kernel 'abi_probe': its code object (", readAmdCodeObject(object)->target,
                         ") has no kernel 'tj_absent'; it has [tj_struct, tj_lds]"));
  KernelMetadata wide = metadataFor("tj_struct", "gfx942", structSignature());
  wide.threadsPerProgram = 2048;
  EXPECT_EQ(errorOf(wide, object),
            "kernel 'tj_struct' (template 'abi_probe') runs 2048 threads per program; its code "
            "object allows at most 1024");
}

TEST(HipKernelArguments, TargetFeaturesMustMatchTheDevice) {
  EXPECT_TRUE(checkHipTargetFeatures("amdgcn-amd-amdhsa--gfx942", "gfx942:sramecc+:xnack-").ok());
  EXPECT_TRUE(
      checkHipTargetFeatures("amdgcn-amd-amdhsa--gfx90a:xnack-", "gfx90a:sramecc-:xnack-").ok());
  EXPECT_EQ(checkHipTargetFeatures("amdgcn-amd-amdhsa--gfx90a:xnack+", "gfx90a:sramecc-:xnack-")
                .message(),
            "the code object is for amdgcn-amd-amdhsa--gfx90a:xnack+ (xnack on) but the device is "
            "gfx90a:sramecc-:xnack-; compile for gfx90a without the feature, or with its setting");
  EXPECT_THAT(std::string(checkHipTargetFeatures("amdgcn-amd-amdhsa--gfx942:sramecc-:xnack-",
                                                 "gfx942:sramecc+:xnack-")
                              .message()),
              HasSubstr("(sramecc off)"));
}

TEST_F(HipKernelArgumentsTest, TheDevicesFeaturesAreChecked) {
  absl::StatusOr<std::string> path =
      compileHip(scratch_.path(), "xnack", kTestKernels, "gfx90a:xnack+");
  ASSERT_TRUE(path.ok()) << path.status();
  const std::string object = fileBytes(*path);
  KernelMetadata metadata = metadataFor("tj_struct", "gfx90a", structSignature());
  EXPECT_TRUE(checkHipCodeObject(metadata, object, "gfx90a:sramecc-:xnack+").ok());
  absl::StatusOr<AmdKernelDescriptor> kernel =
      checkHipCodeObject(metadata, object, "gfx90a:sramecc-:xnack-");
  ASSERT_FALSE(kernel.ok());
  EXPECT_THAT(std::string(kernel.status().message()),
              HasSubstr("kernel 'abi_probe': the code object is for "
                        "amdgcn-amd-amdhsa--gfx90a:xnack+ (xnack on)"));
}

TEST(HipKernelArguments, ACorruptCodeObjectIsAnError) {
  absl::StatusOr<AmdKernelDescriptor> kernel =
      checkHipCodeObject(metadataFor("tj_struct", "gfx942", structSignature()), "garbage");
  ASSERT_FALSE(kernel.ok());
  EXPECT_THAT(std::string(kernel.status().message()),
              HasSubstr("kernel 'abi_probe': AMDGPU code object: not an ELF file (7 bytes"));
}

TEST(HipKernelArguments, TheKernargSegmentMustHoldThePackedBytes) {
  AmdKernelDescriptor kernel;
  kernel.name = "tj_small";
  kernel.kernargSegmentSize = 8;
  kernel.arguments = {{"", 0, 16, "by_value"}};
  absl::Status status = checkHipKernelArguments(
      metadataFor("tj_small", "gfx942", {scalar("a", DType::kI64), scalar("b", DType::kI64)}),
      kernel);
  EXPECT_EQ(status.message(),
            "kernel 'tj_small' (template 'abi_probe'): its kernarg segment is 8 bytes, less than "
            "the 16 bytes the runtime packs");
  kernel.kernargSegmentSize = 256;
  kernel.arguments.push_back({"", 16, 4, "hidden_block_count_x"});  // hidden ones are skipped
  EXPECT_TRUE(
      checkHipKernelArguments(
          metadataFor("tj_small", "gfx942", {scalar("a", DType::kI64), scalar("b", DType::kI64)}),
          kernel)
          .ok());
}

}  // namespace
}  // namespace tilejit
