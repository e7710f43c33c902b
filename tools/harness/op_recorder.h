// The tensors of an op's first run, recorded by argument: what the op was given and what it
// wrote, read off the device around the launches (a LaunchObserver), so that a reference the
// kernel author supplies can be checked against any op's own reference problem.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ops/op.h"
#include "runtime/device.h"

namespace tilejit {

struct RecordedArgument {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;  // empty for a scalar
  bool scalar = false;
  bool written = false;        // some launch of the op writes it
  std::vector<double> before;  // as the op found it (row-major)
  std::vector<double> after;   // written ones: after the run
};

class OpRunRecorder final : public LaunchObserver {
 public:
  // `definition` whose first created op is the one recorded (its workspaces left out).
  OpDefinition wrap(const OpDefinition& definition);
  void beforeLaunch(Device& device, const LoadedKernel& kernel,
                    absl::Span<const KernelArg> args) override;
  void afterLaunch(Device& device, const LoadedKernel& kernel,
                   absl::Span<const KernelArg> args) override;
  // The op's arguments in its order, or why its first run was not recorded.
  absl::StatusOr<std::vector<RecordedArgument>> arguments() const;

 private:
  // Which op argument each kernel argument of the current launch is, or -1 (a workspace).
  std::vector<int> opArgumentsOf(absl::Span<const KernelArg> args) const;

  bool created_ = false, done_ = false;
  size_t launch_ = 0;
  std::vector<const LoadedKernel*> kernels_;    // the op's launches, in order
  std::vector<std::vector<int>> launchArgs_;    // their op argument indices (empty: all)
  std::vector<bool> workspace_, seen_;
  std::vector<TensorArg> tensors_;              // the last tensor each argument was passed as
  std::vector<RecordedArgument> arguments_;
  absl::Status status_;
};

}  // namespace tilejit
