#include "compiler/backends/hip/hiprtc_toolchain.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/hip/amd_compile.h"
#include "support/dynamic_library.h"
#include "support/status.h"

namespace tilejit {
namespace {

using HiprtcResult = int;
using HiprtcProgram = struct HiprtcProgramOpaque*;
constexpr HiprtcResult kHiprtcSuccess = 0;

struct HiprtcApi {
  DynamicLibrary library;
  int major = 0;
  int minor = 0;
  const char* (*getErrorString)(HiprtcResult);
  HiprtcResult (*version)(int*, int*);
  HiprtcResult (*createProgram)(HiprtcProgram*, const char*, const char*, int,
                                const char* const*, const char* const*);
  HiprtcResult (*destroyProgram)(HiprtcProgram*);
  HiprtcResult (*compileProgram)(HiprtcProgram, int, const char* const*);
  HiprtcResult (*getCodeSize)(HiprtcProgram, size_t*);
  HiprtcResult (*getCode)(HiprtcProgram, char*);
  HiprtcResult (*getProgramLogSize)(HiprtcProgram, size_t*);
  HiprtcResult (*getProgramLog)(HiprtcProgram, char*);

  absl::Status check(HiprtcResult result, const char* call) const {
    if (result == kHiprtcSuccess) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(call, " failed: ", getErrorString(result)));
  }
  std::string versionText() const { return absl::StrCat(major, ".", minor); }
  std::string file;  // the library file loaded (its name carries the HIP release)
};

absl::StatusOr<std::unique_ptr<HiprtcApi>> loadHiprtc(const std::vector<std::string>& candidates) {
  auto api = std::make_unique<HiprtcApi>();
  TJ_ASSIGN_OR_RETURN(api->library, openVendorLibrary("hiprtc", candidates));
  const DynamicLibrary& lib = api->library;
#define TJ_HIPRTC_SYMBOL(field, name) \
  TJ_ASSIGN_OR_RETURN(api->field, lib.symbol<decltype(api->field)>(name))
  TJ_HIPRTC_SYMBOL(getErrorString, "hiprtcGetErrorString");
  TJ_HIPRTC_SYMBOL(version, "hiprtcVersion");
  TJ_HIPRTC_SYMBOL(createProgram, "hiprtcCreateProgram");
  TJ_HIPRTC_SYMBOL(destroyProgram, "hiprtcDestroyProgram");
  TJ_HIPRTC_SYMBOL(compileProgram, "hiprtcCompileProgram");
  TJ_HIPRTC_SYMBOL(getCodeSize, "hiprtcGetCodeSize");
  TJ_HIPRTC_SYMBOL(getCode, "hiprtcGetCode");
  TJ_HIPRTC_SYMBOL(getProgramLogSize, "hiprtcGetProgramLogSize");
  TJ_HIPRTC_SYMBOL(getProgramLog, "hiprtcGetProgramLog");
#undef TJ_HIPRTC_SYMBOL
  TJ_RETURN_IF_ERROR(api->check(api->version(&api->major, &api->minor), "hiprtcVersion"));
  // hiprtcVersion is not the HIP release (HIP 5.2.3 says 9.0): the file's real name is.
  Dl_info where;
  char resolved[PATH_MAX];
  if (dladdr(reinterpret_cast<void*>(api->version), &where) && where.dli_fname &&
      realpath(where.dli_fname, resolved)) {
    std::string path = resolved;
    api->file = path.substr(path.rfind('/') + 1);
  }
  return api;
}

absl::StatusOr<const HiprtcApi*> hiprtc(const std::vector<std::string>& candidates) {
  return loadOnce<HiprtcApi>(candidates, loadHiprtc);
}

// hiprtc is handed only what comgr lists: hiprtc 5.2 aborts the process on other ISAs.
absl::Status checkHiprtcMayCompile(const std::string& target,
                                   const std::vector<std::string>& comgr) {
  absl::Status known = checkComgrKnowsTarget(target, comgr);
  if (known.ok()) return known;
  return absl::Status(known.code(), absl::StrCat("hiprtc is not handed ", target,
                                                 " (it may abort the process on an ISA comgr "
                                                 "does not list): ", known.message()));
}

// hiprtc 5.2 emits code object v4 whatever the options say (its runtime loads only v4); the
// automatic choice does not take ROCm 5's hiprtc (amd_toolchains.h).
class HiprtcToolchain : public Toolchain {
 public:
  HiprtcToolchain(const HiprtcApi& api, const TargetDescription& target,
                  std::vector<std::string> comgr)
      : api_(api), target_(target.name), comgr_(std::move(comgr)) {
    options_ = {absl::StrCat("--offload-arch=", target.name), "-std=c++17"};
    for (std::string& option : amdCompileOptions()) options_.push_back(std::move(option));
  }

  std::string identity() const override {
    return absl::StrCat("hiprtc ", api_.versionText(), " (", api_.file, ") ",
                        absl::StrJoin(options_, " "));
  }

  absl::StatusOr<CompileResult> compile(const CompileRequest& request) const override {
    TJ_RETURN_IF_ERROR(checkHiprtcMayCompile(target_, comgr_));
    auto start = std::chrono::steady_clock::now();
    std::vector<const char*> headerContents;
    std::vector<const char*> headerNames;
    for (const auto& [name, content] : request.headers) {
      headerNames.push_back(name.c_str());
      headerContents.push_back(content.c_str());
    }
    const std::string sourceName = request.sourceName.empty() ? "kernel.hip" : request.sourceName;
    HiprtcProgram raw = nullptr;
    TJ_RETURN_IF_ERROR(api_.check(
        api_.createProgram(&raw, request.source.c_str(), sourceName.c_str(),
                           static_cast<int>(request.headers.size()), headerContents.data(),
                           headerNames.data()),
        "hiprtcCreateProgram"));
    VendorHandle program(raw, [&api = api_](HiprtcProgram p) { api.destroyProgram(&p); });
    std::vector<const char*> options;
    for (const std::string& option : options_) options.push_back(option.c_str());
    HiprtcResult compiled =
        api_.compileProgram(program.get(), static_cast<int>(options.size()), options.data());

    CompileResult result;
    size_t logSize = 0;
    if (api_.getProgramLogSize(program.get(), &logSize) == kHiprtcSuccess && logSize) {
      result.log.resize(logSize);
      if (api_.getProgramLog(program.get(), result.log.data()) != kHiprtcSuccess)
        result.log.clear();
    }
    while (!result.log.empty() && result.log.back() == '\0') result.log.pop_back();
    if (compiled != kHiprtcSuccess)
      return absl::InvalidArgumentError(absl::StrCat(
          "hiprtc ", api_.versionText(), " failed to compile ", sourceName, " for ", target_,
          " (", api_.getErrorString(compiled), "):\n", result.log));
    size_t codeSize = 0;
    TJ_RETURN_IF_ERROR(api_.check(api_.getCodeSize(program.get(), &codeSize), "hiprtcGetCodeSize"));
    result.binary.resize(codeSize);
    TJ_RETURN_IF_ERROR(
        api_.check(api_.getCode(program.get(), result.binary.data()), "hiprtcGetCode"));
    TJ_RETURN_IF_ERROR(takeAmdResources(result, request.entry));
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  const HiprtcApi& api_;
  std::string target_;
  std::vector<std::string> comgr_;
  std::vector<std::string> options_;
};

}  // namespace

const std::vector<std::string>& hiprtcCandidates() {
  static const std::vector<std::string> candidates = {
      "libhiprtc.so.7", "libhiprtc.so.6", "libhiprtc.so", "libamdhip64.so.5",
      "/opt/rocm/lib/libhiprtc.so.7", "/opt/rocm/lib/libhiprtc.so.6"};
  return candidates;
}

absl::StatusOr<std::unique_ptr<Toolchain>> createHiprtcToolchain(
    const TargetDescription& target, const std::vector<std::string>& candidates,
    const std::vector<std::string>& comgr) {
  TJ_RETURN_IF_ERROR(checkHiprtcMayCompile(target.name, comgr));
  TJ_ASSIGN_OR_RETURN(const HiprtcApi* api, hiprtc(candidates));
  return std::unique_ptr<Toolchain>(std::make_unique<HiprtcToolchain>(*api, target, comgr));
}

}  // namespace tilejit
