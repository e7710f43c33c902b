#include "compiler/backends/hip/wave_model_toolchain.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "compiler/backends/cpu/host_cxx_toolchain.h"
#include "compiler/backends/hip/wave_model_target.h"
#include "compiler/embedded_files.h"
#include "support/status.h"

namespace tilejit {
namespace {

class WaveModelToolchain : public Toolchain {
 public:
  // `shim`: the shim's headers with the target's generated one among them.
  WaveModelToolchain(std::unique_ptr<Toolchain> host, std::string target,
                     std::vector<std::pair<std::string, std::string>> shim)
      : host_(std::move(host)), target_(std::move(target)), shim_(std::move(shim)) {
    std::string all;
    for (const auto& [name, content] : shim_) absl::StrAppend(&all, name, "\n", content);
    shimDigest_ = std::hash<std::string>()(all);
  }

  // The digest covers the generated layouts: a changed matrix instruction row is a new key.
  std::string identity() const override {
    return absl::StrCat("wave model ", target_, " (shim ", shimDigest_, ") over ",
                        host_->identity());
  }

  absl::StatusOr<CompileResult> compile(const CompileRequest& request) const override {
    CompileRequest hosted = request;
    std::map<std::string, std::string> headers(request.headers.begin(), request.headers.end());
    for (const auto& [name, content] : shim_) headers[name] = content;
    hosted.headers.assign(headers.begin(), headers.end());
    // The target macros before anything of the source, as the device compiler predefines them.
    hosted.source = absl::StrCat("#include \"", kWaveModelTargetHeader, "\"\n", request.source);
    return host_->compile(hosted);
  }

 private:
  std::unique_ptr<Toolchain> host_;
  std::string target_;
  std::vector<std::pair<std::string, std::string>> shim_;
  size_t shimDigest_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Toolchain>> createWaveModelToolchain(
    const TargetDescription& target) {
  if (target.backend != "hip")
    return absl::InvalidArgumentError(absl::StrCat(
        "the wave model runs AMD (hip) targets; ", target.name, " is a ", target.backend, " target"));
  TJ_ASSIGN_OR_RETURN(std::string targetHeader, waveModelTargetHeader(target));
  // The library's clang extensions (_Float16, __bf16, ext_vector_type) want clang.
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Toolchain> host,
                      createHostCxxToolchain(target, {"clang++-22", "clang++"}));
  TJ_ASSIGN_OR_RETURN(auto shim, deviceLibraryHeaders("hip_wave_model"));
  shim.emplace_back(kWaveModelTargetHeader, std::move(targetHeader));
  return std::unique_ptr<Toolchain>(
      std::make_unique<WaveModelToolchain>(std::move(host), target.name, std::move(shim)));
}

}  // namespace tilejit
