#include "compiler/backends/hip/llvm_amdgpu_toolchain.h"

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/backends/hip/amd_compile.h"
#include "compiler/backends/hip/amdgpu/tilejit_amdgpu.h"
#include "support/dynamic_library.h"
#include "support/status.h"

namespace tilejit {
namespace {

constexpr char kPluginName[] = "libtilejit_amdgpu.so";

struct PluginApi {
  DynamicLibrary library;
  std::string version;
  int (*compile)(const TilejitAmdgpuRequest*);
  int (*knowsTarget)(const char*);
};

absl::StatusOr<std::unique_ptr<PluginApi>> loadPlugin(const std::vector<std::string>& candidates) {
  auto api = std::make_unique<PluginApi>();
  TJ_ASSIGN_OR_RETURN(
      api->library,
      openVendorLibrary(absl::StrCat(kPluginName, " (the in-process LLVM AMDGPU compiler)"),
                        candidates));
  TJ_ASSIGN_OR_RETURN(auto version,
                      api->library.symbol<const char* (*)()>("tilejit_amdgpu_version"));
  TJ_ASSIGN_OR_RETURN(api->compile,
                      api->library.symbol<decltype(api->compile)>("tilejit_amdgpu_compile"));
  TJ_ASSIGN_OR_RETURN(api->knowsTarget, api->library.symbol<decltype(api->knowsTarget)>(
                                             "tilejit_amdgpu_knows_target"));
  api->version = version();
  return api;
}

absl::StatusOr<const PluginApi*> plugin(const std::vector<std::string>& candidates) {
  return loadOnce<PluginApi>(candidates, loadPlugin);
}

std::string directoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

struct Outputs {
  std::string codeObject;
  std::string assembly;
  std::string log;
};

void receive(void* context, int output, const char* bytes, size_t size) {
  Outputs& outputs = *static_cast<Outputs*>(context);
  std::string& into = output == TILEJIT_AMDGPU_CODE_OBJECT ? outputs.codeObject
                      : output == TILEJIT_AMDGPU_ASSEMBLY  ? outputs.assembly
                                                           : outputs.log;
  into.assign(bytes, size);
}

class LlvmAmdgpuToolchain : public Toolchain {
 public:
  LlvmAmdgpuToolchain(const PluginApi& api, const TargetDescription& target)
      : api_(api), target_(target.name) {}

  std::string identity() const override {
    return absl::StrCat(api_.version, " --offload-arch=", target_, " -nogpuinc -nogpulib ",
                        absl::StrJoin(amdCompileOptions(), " "), " -std=c++17");
  }

  absl::StatusOr<CompileResult> compile(const CompileRequest& request) const override {
    auto start = std::chrono::steady_clock::now();
    std::vector<const char*> names;
    std::vector<const char*> contents;
    std::vector<size_t> sizes;
    for (const auto& [name, content] : request.headers) {
      names.push_back(name.c_str());
      contents.push_back(content.data());
      sizes.push_back(content.size());
    }
    const std::string sourceName = request.sourceName.empty() ? "kernel.hip" : request.sourceName;
    Outputs outputs;
    TilejitAmdgpuRequest call{};
    call.abi_version = TILEJIT_AMDGPU_ABI_VERSION;
    call.target = target_.c_str();
    call.source = request.source.data();
    call.source_size = request.source.size();
    call.source_name = sourceName.c_str();
    call.header_count = names.size();
    call.header_names = names.data();
    call.header_contents = contents.data();
    call.header_sizes = sizes.data();
    call.code_object_version = kAmdCodeObjectVersion;
    // The listing costs a second codegen; the toolchain interface has no way to ask for it
    // only when it is shown, so it is always made.
    call.want_assembly = 1;
    call.sink = receive;
    call.context = &outputs;
    if (api_.compile(&call) != 0)
      return absl::InvalidArgumentError(absl::StrCat(api_.version, " failed to compile ",
                                                     sourceName, " for ", target_, ":\n",
                                                     outputs.log));
    CompileResult result;
    result.binary = std::move(outputs.codeObject);
    result.intermediate = std::move(outputs.assembly);
    result.log = std::move(outputs.log);
    TJ_RETURN_IF_ERROR(takeAmdResources(result, request.entry));
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  }

 private:
  const PluginApi& api_;
  std::string target_;
};

}  // namespace

std::vector<std::string> llvmAmdgpuCandidates() {
  std::vector<std::string> directories;
  char path[PATH_MAX];
  if (ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1); length > 0)
    directories.push_back(directoryOf(std::string(path, size_t(length))));
  Dl_info where;
  if (dladdr(reinterpret_cast<void*>(&llvmAmdgpuCandidates), &where) && where.dli_fname)
    directories.push_back(directoryOf(where.dli_fname));
  std::vector<std::string> candidates;
  for (const std::string& directory : directories)
    for (const char* relative : {"/", "/../lib/"}) {
      std::string candidate = absl::StrCat(directory, relative, kPluginName);
      if (std::find(candidates.begin(), candidates.end(), candidate) == candidates.end())
        candidates.push_back(candidate);
    }
  candidates.push_back(kPluginName);
  return candidates;
}

absl::StatusOr<std::unique_ptr<Toolchain>> createLlvmAmdgpuToolchain(
    const TargetDescription& target, const std::vector<std::string>& candidates) {
  TJ_ASSIGN_OR_RETURN(const PluginApi* api, plugin(candidates));
  if (!api->knowsTarget(target.name.c_str()))
    return absl::NotFoundError(absl::StrCat(api->version, " (", api->library.path(),
                                            ") has no AMDGPU processor named ", target.name));
  return std::unique_ptr<Toolchain>(std::make_unique<LlvmAmdgpuToolchain>(*api, target));
}

}  // namespace tilejit
