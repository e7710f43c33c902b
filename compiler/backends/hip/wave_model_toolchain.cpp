#include "compiler/backends/hip/wave_model_toolchain.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "compiler/backends/cpu/host_cxx_toolchain.h"
#include "compiler/embedded_files.h"
#include "support/status.h"

namespace tilejit {
namespace {

// The family macro the library reads its wave size (and matrix instruction) from.
absl::StatusOr<std::string> familyMacro(const std::string& target) {
  if (target == "gfx90a" || target == "gfx942") return std::string("__GFX9__");
  if (target == "gfx1100") return std::string("__GFX11__");
  return absl::InvalidArgumentError(absl::StrCat(
      "the wave model runs gfx90a, gfx942 and gfx1100, not ", target,
      " (its matrix instruction is not modelled)"));
}

class WaveModelToolchain : public Toolchain {
 public:
  WaveModelToolchain(std::unique_ptr<Toolchain> host, std::string target, std::string family,
                     std::vector<std::pair<std::string, std::string>> shim)
      : host_(std::move(host)),
        target_(std::move(target)),
        family_(std::move(family)),
        shim_(std::move(shim)) {
    std::string all;
    for (const auto& [name, content] : shim_) absl::StrAppend(&all, name, "\n", content);
    shimDigest_ = std::hash<std::string>()(all);
  }

  std::string identity() const override {
    return absl::StrCat("wave model ", target_, " (shim ", shimDigest_, ") over ",
                        host_->identity());
  }

  absl::StatusOr<CompileResult> compile(const CompileRequest& request) const override {
    CompileRequest hosted = request;
    std::map<std::string, std::string> headers(request.headers.begin(), request.headers.end());
    for (const auto& [name, content] : shim_) headers[name] = content;
    hosted.headers.assign(headers.begin(), headers.end());
    hosted.source = absl::StrCat("#define ", family_, " 1\n", request.source);
    return host_->compile(hosted);
  }

 private:
  std::unique_ptr<Toolchain> host_;
  std::string target_;
  std::string family_;
  std::vector<std::pair<std::string, std::string>> shim_;
  size_t shimDigest_ = 0;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Toolchain>> createWaveModelToolchain(
    const TargetDescription& target) {
  TJ_ASSIGN_OR_RETURN(std::string family, familyMacro(target.name));
  // The library's clang extensions (_Float16, __bf16, ext_vector_type) want clang.
  TJ_ASSIGN_OR_RETURN(std::unique_ptr<Toolchain> host,
                      createHostCxxToolchain(target, {"clang++-22", "clang++"}));
  TJ_ASSIGN_OR_RETURN(auto shim, deviceLibraryHeaders("hip_wave_model"));
  return std::unique_ptr<Toolchain>(std::make_unique<WaveModelToolchain>(
      std::move(host), target.name, std::move(family), std::move(shim)));
}

}  // namespace tilejit
