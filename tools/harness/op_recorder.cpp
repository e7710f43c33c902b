#include "tools/harness/op_recorder.h"

#include "absl/strings/str_cat.h"
#include "tools/harness/host_tensor.h"

namespace tilejit {

namespace {

absl::StatusOr<std::vector<double>> download(Device& device, const std::string& name,
                                             const TensorArg& tensor) {
  int64_t stride = 1;
  for (int d = tensor.rank - 1; d >= 0; --d) {
    if (tensor.shape[d] > 1 && tensor.strides[d] != stride)
      return absl::UnimplementedError(
          absl::StrCat("argument '", name, "' is not contiguous: an author reference reads dense "
                       "tensors only"));
    stride *= tensor.shape[d];
  }
  HostTensor host(tensor.dtype, std::vector<int64_t>(tensor.shape, tensor.shape + tensor.rank));
  if (absl::Status copied = device.copyToHost(host.bytes.data(), tensor.data, host.bytes.size());
      !copied.ok())
    return copied;
  std::vector<double> values(static_cast<size_t>(host.numel()));
  for (int64_t i = 0; i < host.numel(); ++i) values[size_t(i)] = host.get(i);
  return values;
}

}  // namespace

OpDefinition OpRunRecorder::wrap(const OpDefinition& definition) {
  OpDefinition wrapped = definition;
  wrapped.create = [this, create = definition.create](JitCompiler& jit, Device& device,
                                                      const OpConfig& config)
      -> absl::StatusOr<std::unique_ptr<Op>> {
    absl::StatusOr<std::unique_ptr<Op>> op = create(jit, device, config);
    if (!op.ok() || created_) return op;
    created_ = true;
    const Op& made = **op;
    for (const OpLaunch& launch : made.launches()) {
      kernels_.push_back(launch.kernel);
      launchArgs_.push_back(launch.arguments);
    }
    size_t count = made.arguments().size();
    workspace_.assign(count, false);
    seen_.assign(count, false);
    tensors_.resize(count);
    arguments_.resize(count);
    for (size_t i = 0; i < count; ++i) {
      arguments_[i].name = made.arguments()[i].name;
      arguments_[i].dtype = made.arguments()[i].dtype;
      arguments_[i].scalar = !made.arguments()[i].isTensor;
      for (const OpWorkspace& workspace : made.workspaces())
        if (workspace.name == arguments_[i].name) workspace_[i] = true;
    }
    return op;
  };
  return wrapped;
}

std::vector<int> OpRunRecorder::opArgumentsOf(absl::Span<const KernelArg> args) const {
  std::vector<int> indices;
  const std::vector<int>& gathered = launchArgs_[launch_];
  for (size_t i = 0; i < args.size(); ++i) {
    int index = gathered.empty() ? int(i) : gathered[i];
    indices.push_back(index < int(workspace_.size()) && !workspace_[size_t(index)] ? index : -1);
  }
  return indices;
}

void OpRunRecorder::beforeLaunch(Device& device, const LoadedKernel& kernel,
                                 absl::Span<const KernelArg> args) {
  if (!created_ || done_ || !status_.ok() || kernels_[launch_] != &kernel) return;
  std::vector<int> indices = opArgumentsOf(args);
  for (size_t i = 0; i < args.size(); ++i) {
    if (indices[i] < 0) continue;
    RecordedArgument& argument = arguments_[size_t(indices[i])];
    argument.written |= kernel.metadata().args[i].writable;
    if (seen_[size_t(indices[i])]) continue;
    seen_[size_t(indices[i])] = true;
    if (args[i].kind == KernelArg::Kind::kScalar) {
      const ScalarArg& scalar = args[i].scalar;
      argument.before = {isFloat(scalar.dtype) ? scalar.floatValue : double(scalar.intValue)};
      continue;
    }
    const TensorArg& tensor = args[i].tensor;
    tensors_[size_t(indices[i])] = tensor;
    argument.shape.assign(tensor.shape, tensor.shape + tensor.rank);
    absl::StatusOr<std::vector<double>> values = download(device, argument.name, tensor);
    if (!values.ok()) return void(status_ = values.status());
    argument.before = *std::move(values);
  }
}

void OpRunRecorder::afterLaunch(Device& device, const LoadedKernel& kernel,
                                absl::Span<const KernelArg> /*args*/) {
  if (!created_ || done_ || !status_.ok() || kernels_[launch_] != &kernel) return;
  if (++launch_ < kernels_.size()) return;
  done_ = true;
  if (absl::Status synced = device.synchronize(); !synced.ok()) return void(status_ = synced);
  for (size_t i = 0; i < arguments_.size(); ++i) {
    if (!arguments_[i].written || arguments_[i].scalar) continue;
    absl::StatusOr<std::vector<double>> values = download(device, arguments_[i].name, tensors_[i]);
    if (!values.ok()) return void(status_ = values.status());
    arguments_[i].after = *std::move(values);
  }
}

absl::StatusOr<std::vector<RecordedArgument>> OpRunRecorder::arguments() const {
  if (!status_.ok()) return status_;
  if (!done_)
    return absl::FailedPreconditionError(
        "the op's check finished before one whole run of the op: nothing to compare with the "
        "author's reference");
  std::vector<RecordedArgument> recorded;
  for (size_t i = 0; i < arguments_.size(); ++i)
    if (!workspace_[i] && seen_[i]) recorded.push_back(arguments_[i]);
  return recorded;
}

}  // namespace tilejit
