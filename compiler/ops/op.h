// The op layer: an op is a named composition of kernels. Its typed config (a schema of named
// parameters, parsed once from text at the edges), a spec built once from the config and the
// target's tuning, its workspaces (the caller allocates them once, outside graph capture), its
// arguments in order, and a launch sequence replayed per call without allocating, parsing or
// looking anything up by name. Ops are found by name in a registry that every op folder
// (compiler/ops/<op>/) joins through a CMake-generated list (compiler/ops/README.md).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "compiler/jit_compiler.h"
#include "compiler/parameter_value.h"

namespace tilejit {

enum class OpParameterKind { kInt, kBool, kEnum, kDType };

struct OpParameter {
  std::string name;
  OpParameterKind kind = OpParameterKind::kInt;
  // nullopt: unset unless given (the target's tuning, then the kernel's default decide).
  std::optional<ParameterValue> defaultValue;
  // kEnum: the values accepted; kDType: empty = any element type (the kernel's domain checks).
  // Integers are checked by the kernels' domains, whose messages name the legal values.
  std::vector<std::string> legal;
  std::string help;
  std::optional<int64_t> minimum;  // kInt: the smallest value accepted
};

// A config checked against its schema: integers for int and bool parameters (0 / 1), strings
// for enums, type names for dtypes; defaults filled in.
class OpConfig {
 public:
  bool has(std::string_view name) const { return values_.count(name) != 0; }
  const ParameterValue* find(std::string_view name) const;
  // The parameter's value; `fallback` where it is unset.
  int64_t integer(std::string_view name, int64_t fallback = 0) const;
  bool flag(std::string_view name) const { return integer(name) != 0; }
  std::string text(std::string_view name, std::string_view fallback = "") const;
  const std::map<std::string, ParameterValue, std::less<>>& values() const { return values_; }

  // Template files replacing the shipped kernels, by template name (kernel authors, mutants).
  std::map<std::string, std::string> templateOverrides;

 private:
  friend class OpSchema;
  std::map<std::string, ParameterValue, std::less<>> values_;
};

class OpSchema {
 public:
  OpSchema() = default;
  OpSchema(std::string opName, std::vector<OpParameter> parameters)
      : opName_(std::move(opName)), parameters_(std::move(parameters)) {}
  const std::string& opName() const { return opName_; }
  const std::vector<OpParameter>& parameters() const { return parameters_; }
  const OpParameter* find(std::string_view name) const;

  // "name=value" items: an unknown or repeated name, or a value its kind does not admit, is an
  // error naming the parameter, the value and the legal set. `defaults` replace the schema's.
  absl::StatusOr<OpConfig> parse(absl::Span<const std::string> assignments,
                                 const std::map<std::string, ParameterValue>& defaults = {}) const;
  // Values from code: typed, or text parsed by the parameter's kind.
  absl::StatusOr<OpConfig> bind(const std::map<std::string, ParameterValue>& values) const;
  // "name kind (legal values; default)" per parameter, one a line (the CLI's help).
  std::string describe() const;

 private:
  absl::StatusOr<ParameterValue> admit(const OpParameter& parameter,
                                       const ParameterValue& value) const;
  std::string opName_;
  std::vector<OpParameter> parameters_;
};

// Problem sizes (num_seqs, max_model_len, ...) that workspace shapes are functions of.
using ProblemSizes = std::map<std::string, int64_t, std::less<>>;

struct OpWorkspace {
  std::string name;  // also the name of the argument it is passed as
  DType dtype = DType::kF32;
  std::vector<std::string> sizes;  // the problem sizes its shape reads
  std::function<std::vector<int64_t>(const ProblemSizes&)> shape;
  bool zeroOnce = false;  // zeroed once before the first run; the op leaves it zeroed
};

struct WorkspaceShape {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  bool zeroOnce = false;
  int64_t bytes() const;
};

struct OpArgument {
  std::string name;
  bool isTensor = true;
  DType dtype = DType::kF32;  // scalars: the type the kernels read
};

// One kernel launch: the kernel and its arguments as indices into the op's arguments (empty:
// the op's arguments as they are).
struct OpLaunch {
  const LoadedKernel* kernel = nullptr;
  std::vector<int> arguments;
};

class Op {
 public:
  // Not copyable: workspace shapes and launches may refer to the op that made them.
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;
  virtual ~Op() = default;
  const std::string& name() const { return name_; }
  const OpConfig& config() const { return config_; }
  const std::vector<OpArgument>& arguments() const { return arguments_; }
  const std::vector<OpWorkspace>& workspaces() const { return workspaces_; }
  const std::vector<OpLaunch>& launches() const { return launches_; }
  // The op's argument index of `name`, or -1.
  int argumentIndex(std::string_view name) const;
  // The op's arguments in run() order from a map by name; an argument the map lacks is an
  // error naming it (callers that build problems by name: the reference checks, tests).
  absl::StatusOr<std::vector<KernelArg>> argumentsInOrder(
      const std::map<std::string, KernelArg>& byName) const;

  // A workspace's dtype and shape for these problem sizes; a size it reads that is missing is
  // an error naming it.
  absl::StatusOr<WorkspaceShape> workspaceShape(std::string_view workspace,
                                                const ProblemSizes& sizes) const;

  // The launch sequence on `stream`, arguments in arguments() order: no allocation, no
  // synchronisation (capturable in a CUDA graph).
  absl::Status run(absl::Span<const KernelArg> args, Stream stream = nullptr) const;

  // How the op's first kernel was obtained (cache hit, compile times; no code bytes).
  const CompiledKernel& compiled() const { return compiled_; }

 protected:
  Op() = default;
  // Checks an op adds before launching (cheap: run per call).
  virtual absl::Status checkArguments(absl::Span<const KernelArg>) const {
    return absl::OkStatus();
  }

  Device* device_ = nullptr;
  std::string name_;
  OpConfig config_;
  std::vector<OpArgument> arguments_;
  std::vector<OpWorkspace> workspaces_;
  std::vector<OpLaunch> launches_;
  CompiledKernel compiled_;
};

struct OpDefinition {
  std::string name;
  std::string summary;
  OpSchema schema;
  std::vector<std::string> kernels;  // the templates it launches (shipped names)
  std::function<absl::StatusOr<std::unique_ptr<Op>>(JitCompiler&, Device&, const OpConfig&)>
      create;
};

class OpRegistry {
 public:
  // Every shipped op (the generated list of compiler/ops/<op>/ folders).
  static const OpRegistry& shipped();
  // Whether every add() of the registration succeeded (else the first failure).
  const absl::Status& status() const { return status_; }

  absl::Status add(OpDefinition definition);
  const OpDefinition* find(std::string_view name) const;
  // The op `name`, or an error listing the registered ones.
  absl::StatusOr<const OpDefinition*> lookup(std::string_view name) const;
  // The op launching template `kernel`, or nullptr.
  const OpDefinition* findByKernel(std::string_view kernel) const;
  std::vector<std::string> names() const;  // sorted

  // Parses `assignments` by the op's schema and creates it.
  absl::StatusOr<std::unique_ptr<Op>> create(JitCompiler& jit, Device& device,
                                             std::string_view name,
                                             absl::Span<const std::string> assignments) const;

 private:
  std::map<std::string, OpDefinition, std::less<>> ops_;
  absl::Status status_;
};

// The spec of one kernel of an op: the shipped template, or the config's override for it.
absl::StatusOr<KernelSpec> opKernelSpec(const OpConfig& config, const std::string& kernel,
                                        const std::string& target, ParameterMap parameters);

// A parameter with no default: unset unless given (the target's tuning, then the template's
// default decide).
OpParameter tunedParameter(std::string name, OpParameterKind kind = OpParameterKind::kInt,
                           std::vector<std::string> legal = {});

// Registers the op `kernel` launching the template of that name alone (createSingleKernelOp).
absl::Status addSingleKernelOp(OpRegistry& registry, const std::string& kernel,
                               std::string summary, std::vector<OpParameter> parameters);

// An op of one kernel: every config value binds the template parameter of the same name; its
// arguments are the kernel's, launched as they are.
absl::StatusOr<std::unique_ptr<Op>> createSingleKernelOp(JitCompiler& jit, Device& device,
                                                         const std::string& kernel,
                                                         const OpConfig& config);

}  // namespace tilejit
