// The CPU backend: the `host` target, whose programs each run on one host thread over the
// plain-loop device library (templates/device/cpu), compiled by the host C++ compiler.
#include <thread>

#include "compiler/backends/backend.h"
#include "compiler/backends/cpu/host_cxx_toolchain.h"

namespace tilejit {
namespace {

class CpuBackend : public CompilerBackend {
 public:
  std::string_view name() const override { return "cpu"; }
  std::string_view sourceSuffix() const override { return ".cpp"; }
  int listingRank() const override { return 2; }

  std::vector<TargetDescription> targets() const override {
    return {{"host", "CPU (one host thread per program)", Vendor::kHost, "cpu", 1,
             static_cast<int64_t>(std::thread::hardware_concurrency()), 1024, 1 << 30, 0, 0, {}}};
  }

  // The default prelude (no defines) fits: the library has no scratch and no occupancy to
  // hint; the reserved parameters are still checked (a cluster_size other than 1 is refused).

  absl::StatusOr<std::unique_ptr<Toolchain>> createToolchain(
      const TargetDescription& target, const std::string&) const override {
    return createHostCxxToolchain(target);
  }
};

}  // namespace

const CompilerBackend& cpuBackend() {
  static const CpuBackend backend;
  return backend;
}

}  // namespace tilejit
