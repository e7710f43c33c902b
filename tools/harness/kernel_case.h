// A kernel case: how to make inputs for one template, compute its reference and judge the
// output. The runner (used by `tilejit run`, the tests and the benchmarks) builds arguments
// from the kernel's own signature, launches, checks and times.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/jit_compiler.h"
#include "tools/harness/host_tensor.h"

namespace tilejit {

struct HostArg {
  const ArgSpec* spec = nullptr;
  HostTensor tensor;  // views
  ScalarArg scalar;   // scalars
};
using HostArgs = std::vector<HostArg>;

struct CheckResult {
  bool passed = false;
  double error = 0;      // the case's error measure (relative L-inf unless it says otherwise)
  double tolerance = 0;
  std::string detail;    // what was compared, NaN counts, ...
};

class KernelCase {
 public:
  virtual ~KernelCase() = default;
  virtual std::string templateName() const = 0;
  // Shape symbols used where the caller gives none.
  virtual std::map<std::string, int64_t> defaultShape() const = 0;
  // Fills every argument (inputs random, never zeros; outputs poisoned). `args` arrive
  // shaped from the signature.
  virtual absl::Status fill(HostArgs& args, std::mt19937_64& rng) const = 0;
  // Judges `outputs` (the arguments after the launch) against the reference from `inputs`.
  virtual CheckResult check(const HostArgs& inputs, const HostArgs& outputs) const = 0;
  // The same knowing the kernel's bound parameters (the runner calls this one): for a case
  // whose reference depends on a parameter the arguments' shapes do not show (how an fp8
  // cache is scaled).
  virtual CheckResult checkSpecialization(
      const HostArgs& inputs, const HostArgs& outputs,
      const std::vector<std::pair<std::string, std::string>>& /*parameters*/) const {
    return check(inputs, outputs);
  }
  // Bytes the kernel must move at least (for achieved bandwidth).
  virtual double bytesMoved(const HostArgs& inputs) const = 0;
};

// The case for a template name, or nullptr.
const KernelCase* findKernelCase(std::string_view templateName);

struct RunOptions {
  std::map<std::string, int64_t> shape;  // overrides of defaultShape()
  int warmup = 3;
  int iterations = 20;
  uint64_t seed = 1;
};

struct RunReport {
  CompiledKernel compiled;
  double loadSeconds = 0;      // compile-or-cache + module load
  CheckResult check;
  std::vector<double> timesMs;
  double medianMs = 0;
  double bytes = 0;
  std::map<std::string, int64_t> shape;
};

absl::StatusOr<RunReport> runKernelCase(JitCompiler& jit, Device& device, const KernelSpec& spec,
                                        const KernelCase& kernelCase, const RunOptions& options);

// The case's inputs launched through `launch` (a kernel, or an op, taking the arguments of
// `metadata`'s signature), checked and timed into `report` (its compile fields untouched).
absl::Status runKernelCaseOn(Device& device, const KernelMetadata& metadata,
                             const KernelCase& kernelCase, const RunOptions& options,
                             const std::function<absl::Status(absl::Span<const KernelArg>)>& launch,
                             RunReport& report);

// Index helpers for cases: the argument with this name.
const HostArg& argNamed(const HostArgs& args, std::string_view name);
HostArg& argNamed(HostArgs& args, std::string_view name);

}  // namespace tilejit
