// Builds AMDGPU code objects at test time with the installed clang++-22 (device-only HIP, no
// HIP headers or device libraries), for the HIP backend's tests.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace tilejit::testing {

inline constexpr const char* kClang = "/usr/lib/llvm-22/bin/clang++";
inline constexpr const char* kReadelf = "/usr/lib/llvm-22/bin/llvm-readelf";

// Why code objects cannot be built here, or empty when they can.
inline std::string whyNoClang() {
  if (::access(kClang, X_OK) != 0)
    return absl::StrCat(kClang, " is not installed (clang-22): no AMDGPU code objects to read");
  if (::access(kReadelf, X_OK) != 0)
    return absl::StrCat(kReadelf, " is not installed (llvm-22): nothing to check against");
  return "";
}

// stdout and stderr of `command`; `status` gets its exit status.
inline std::string runCommand(const std::string& command, int* status) {
  std::string output;
  if (FILE* pipe = ::popen((command + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    size_t got;
    while ((got = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, got);
    *status = ::pclose(pipe);
  } else {
    *status = -1;
  }
  return output;
}

inline std::string fileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A scratch directory removed with the object.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(base && *base ? base : "/tmp", "/tj_hip_XXXXXX");
    if (::mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchDirectory() {
    if (path_.empty()) return;
    int status = 0;
    runCommand(absl::StrCat("rm -rf '", path_, "'"), &status);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Kernels that take their arguments as tilejit's kernel ABI does (one struct by value) and as
// plain parameters with LDS and hidden arguments, without HIP's headers.
inline constexpr const char* kTestKernels = R"(
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
struct Args { float* q; long n; long extents[2]; long strides[2]; float scale; };
extern "C" __global__ void tj_struct(Args a) {
  if (a.n > 0) a.q[0] = a.scale * (float)a.extents[1] + a.strides[0];
}
extern "C" __global__ void tj_lds(float* out, const float* in, int n, double s) {
  __shared__ float tile[256];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  unsigned b = __builtin_amdgcn_workgroup_id_x();
  tile[t] = in[b * 256 + t];
  __builtin_amdgcn_s_barrier();
  unsigned short dim = *((const unsigned short*)__builtin_amdgcn_implicitarg_ptr() + 6);
  out[b * 256 + t] = tile[255 - t] * s + n + dim;
}
)";

// Compiles `source` for `target` into `directory`/<name>.co and returns its path. An empty
// `codeObjectVersion` keeps clang's default (v6 for clang 22).
inline absl::StatusOr<std::string> compileHip(const std::string& directory, const std::string& name,
                                              const std::string& source, const std::string& target,
                                              const std::string& codeObjectVersion = "5") {
  const std::string sourcePath = absl::StrCat(directory, "/", name, ".hip");
  const std::string objectPath = absl::StrCat(directory, "/", name, ".co");
  std::ofstream(sourcePath) << source;
  std::string command = absl::StrCat(
      kClang, " -x hip --offload-arch=", target,
      " --offload-device-only --no-gpu-bundle-output -nogpuinc -nogpulib -O3 ",
      codeObjectVersion.empty() ? "" : absl::StrCat("-mcode-object-version=", codeObjectVersion),
      " -c '", sourcePath, "' -o '", objectPath, "'");
  int status = 0;
  std::string output = runCommand(command, &status);
  if (status != 0)
    return absl::InternalError(absl::StrCat(command, " failed (", status, "): ", output));
  return objectPath;
}

// Skips where clang++-22 or llvm-readelf is missing; builds into a scratch directory.
class ClangTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = whyNoClang();
    if (!why.empty()) GTEST_SKIP() << why;
    ASSERT_FALSE(scratch_.path().empty());
  }
  ScratchDirectory scratch_;
};

}  // namespace tilejit::testing
