#include "compiler/ops/op.h"

#include <new>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "support/status.h"

namespace tilejit {

absl::Status registerShippedOps(OpRegistry& registry);  // generated from the op folders

namespace {

const char* kindName(OpParameterKind kind) {
  switch (kind) {
    case OpParameterKind::kInt: return "int";
    case OpParameterKind::kBool: return "bool";
    case OpParameterKind::kEnum: return "enum";
    case OpParameterKind::kDType: return "dtype";
  }
  return "?";
}

std::string legalText(const OpParameter& parameter) {
  switch (parameter.kind) {
    case OpParameterKind::kInt:
      return parameter.minimum ? absl::StrCat("an integer >= ", *parameter.minimum) : "an integer";
    case OpParameterKind::kBool: return "0, 1, true, false";
    case OpParameterKind::kEnum: return absl::StrJoin(parameter.legal, ", ");
    case OpParameterKind::kDType:
      return parameter.legal.empty() ? "an element type (f16, bf16, f32, ...)"
                                     : absl::StrJoin(parameter.legal, ", ");
  }
  return "";
}

// Room for one kernel's arguments on the stack (KernelArg has no default constructor).
constexpr int kMaxKernelArgs = 32;

}  // namespace

const ParameterValue* OpConfig::find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

int64_t OpConfig::integer(std::string_view name, int64_t fallback) const {
  const ParameterValue* value = find(name);
  return value ? value->integer() : fallback;
}

std::string OpConfig::text(std::string_view name, std::string_view fallback) const {
  const ParameterValue* value = find(name);
  return value ? value->text() : std::string(fallback);
}

const OpParameter* OpSchema::find(std::string_view name) const {
  for (const OpParameter& parameter : parameters_)
    if (parameter.name == name) return &parameter;
  return nullptr;
}

absl::StatusOr<ParameterValue> OpSchema::admit(const OpParameter& parameter,
                                               const ParameterValue& value) const {
  const std::string& text = value.text();
  auto refuse = [&](const char* why) {
    return absl::InvalidArgumentError(absl::StrCat("op '", opName_, "' parameter '", parameter.name,
                                                   "': '", text, "' ", why, "; legal values: ",
                                                   legalText(parameter)));
  };
  switch (parameter.kind) {
    case OpParameterKind::kInt: {
      int64_t integer = value.integer();
      if (!value.isInteger() && !absl::SimpleAtoi(text, &integer)) return refuse("is not an integer");
      if (parameter.minimum && integer < *parameter.minimum) return refuse("is too small");
      return ParameterValue(integer);
    }
    case OpParameterKind::kBool: {
      if (value.isInteger() ? (value.integer() == 0 || value.integer() == 1)
                            : (text == "0" || text == "1"))
        return ParameterValue(int64_t(text == "1"));
      if (text == "true" || text == "false") return ParameterValue(int64_t(text == "true"));
      return refuse("is not a boolean");
    }
    case OpParameterKind::kEnum:
      for (const std::string& legal : parameter.legal)
        if (text == legal) return ParameterValue::string(text);
      return refuse("is not one of its values");
    case OpParameterKind::kDType: {
      bool known = parameter.legal.empty() ? parseDType(text).ok() : false;
      for (const std::string& legal : parameter.legal) known |= text == legal;
      if (!known) return refuse("is not an element type it takes");
      return ParameterValue::typeName(text);
    }
  }
  return absl::InternalError("unknown parameter kind");
}

absl::StatusOr<OpConfig> OpSchema::bind(const std::map<std::string, ParameterValue>& values) const {
  OpConfig config;
  for (const auto& [name, value] : values) {
    const OpParameter* parameter = find(name);
    if (!parameter) {
      std::vector<std::string> names;
      for (const OpParameter& known : parameters_) names.push_back(known.name);
      return absl::InvalidArgumentError(absl::StrCat("unknown parameter '", name, "' for op '",
                                                     opName_, "'; its parameters are: ",
                                                     absl::StrJoin(names, ", ")));
    }
    TJ_ASSIGN_OR_RETURN(ParameterValue admitted, admit(*parameter, value));
    config.values_[name] = std::move(admitted);
  }
  for (const OpParameter& parameter : parameters_)
    if (!config.has(parameter.name) && parameter.defaultValue) {
      TJ_ASSIGN_OR_RETURN(ParameterValue admitted, admit(parameter, *parameter.defaultValue));
      config.values_[parameter.name] = std::move(admitted);
    }
  return config;
}

absl::StatusOr<OpConfig> OpSchema::parse(absl::Span<const std::string> assignments,
                                         const std::map<std::string, ParameterValue>& defaults) const {
  std::map<std::string, ParameterValue> values;
  for (const std::string& assignment : assignments) {
    size_t eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
      return absl::InvalidArgumentError(absl::StrCat("op '", opName_, "': parameter '", assignment,
                                                     "' is not name=value"));
    std::string name = assignment.substr(0, eq);
    if (!values.emplace(name, assignment.substr(eq + 1)).second)
      return absl::InvalidArgumentError(
          absl::StrCat("op '", opName_, "': parameter '", name, "' is given twice"));
  }
  for (const auto& [name, value] : defaults) values.emplace(name, value);
  return bind(values);
}

std::string OpSchema::describe() const {
  std::string text;
  for (const OpParameter& parameter : parameters_)
    absl::StrAppend(&text, "  ", parameter.name, ": ", kindName(parameter.kind), " (",
                    legalText(parameter), "), default ",
                    parameter.defaultValue ? parameter.defaultValue->text() : "tuned",
                    parameter.help.empty() ? "" : "; ", parameter.help, "\n");
  return text;
}

int64_t WorkspaceShape::bytes() const {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count * dtypeSize(dtype);
}

int Op::argumentIndex(std::string_view name) const {
  for (size_t i = 0; i < arguments_.size(); ++i)
    if (arguments_[i].name == name) return int(i);
  return -1;
}

absl::StatusOr<std::vector<KernelArg>> Op::argumentsInOrder(
    const std::map<std::string, KernelArg>& byName) const {
  std::vector<KernelArg> args;
  args.reserve(arguments_.size());
  for (const OpArgument& argument : arguments_) {
    auto it = byName.find(argument.name);
    if (it == byName.end())
      return absl::InvalidArgumentError(absl::StrCat("op '", name(), "' takes an argument '",
                                                     argument.name, "' the caller did not give"));
    args.push_back(it->second);
  }
  return args;
}

absl::StatusOr<WorkspaceShape> Op::workspaceShape(std::string_view workspace,
                                                  const ProblemSizes& sizes) const {
  for (const OpWorkspace& declared : workspaces_) {
    if (declared.name != workspace) continue;
    for (const std::string& size : declared.sizes)
      if (!sizes.count(size))
        return absl::InvalidArgumentError(absl::StrCat("op '", name_, "' workspace '", std::string(workspace),
                                                       "' needs the problem size '", size,
                                                       "'; it reads: ",
                                                       absl::StrJoin(declared.sizes, ", ")));
    return WorkspaceShape{declared.dtype, declared.shape(sizes), declared.zeroOnce};
  }
  std::vector<std::string> names;
  for (const OpWorkspace& declared : workspaces_) names.push_back(declared.name);
  return absl::NotFoundError(absl::StrCat("op '", name_, "' has no workspace '", std::string(workspace),
                                          "'; its workspaces are: ",
                                          names.empty() ? "none" : absl::StrJoin(names, ", ")));
}

absl::Status Op::run(absl::Span<const KernelArg> args, Stream stream) const {
  if (args.size() != arguments_.size())
    return absl::InvalidArgumentError(absl::StrCat("op '", name_, "' takes ", arguments_.size(),
                                                   " arguments, not ", args.size()));
  TJ_RETURN_IF_ERROR(checkArguments(args));
  for (const OpLaunch& launch : launches_) {
    if (launch.arguments.empty()) {
      TJ_RETURN_IF_ERROR(device_->launch(*launch.kernel, args, stream));
      continue;
    }
    if (launch.arguments.size() > size_t(kMaxKernelArgs))
      return absl::InternalError(absl::StrCat("op '", name_, "' launches a kernel of more than ",
                                              kMaxKernelArgs, " arguments"));
    alignas(KernelArg) unsigned char storage[kMaxKernelArgs * sizeof(KernelArg)];
    auto* gathered = reinterpret_cast<KernelArg*>(storage);
    for (size_t i = 0; i < launch.arguments.size(); ++i)
      new (&gathered[i]) KernelArg(args[size_t(launch.arguments[i])]);
    TJ_RETURN_IF_ERROR(
        device_->launch(*launch.kernel, absl::MakeConstSpan(gathered, launch.arguments.size()), stream));
  }
  return absl::OkStatus();
}

const OpRegistry& OpRegistry::shipped() {
  static const OpRegistry* registry = [] {
    auto* created = new OpRegistry;
    created->status_ = registerShippedOps(*created);
    return created;
  }();
  return *registry;
}

absl::Status OpRegistry::add(OpDefinition definition) {
  if (definition.name.empty() || !definition.create)
    return absl::InvalidArgumentError("an op needs a name and a create function");
  if (definition.schema.opName() != definition.name)
    return absl::InvalidArgumentError(absl::StrCat("op '", definition.name,
                                                   "' has the schema of op '",
                                                   definition.schema.opName(), "'"));
  std::string name = definition.name;
  if (!ops_.emplace(name, std::move(definition)).second)
    return absl::AlreadyExistsError(absl::StrCat("op '", name, "' is registered twice"));
  return absl::OkStatus();
}

const OpDefinition* OpRegistry::find(std::string_view name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

absl::StatusOr<const OpDefinition*> OpRegistry::lookup(std::string_view name) const {
  if (const OpDefinition* definition = find(name)) return definition;
  return absl::NotFoundError(absl::StrCat("unknown op '", std::string(name), "'; the ops are: ",
                                          absl::StrJoin(names(), ", ")));
}

const OpDefinition* OpRegistry::findByKernel(std::string_view kernel) const {
  for (const auto& [name, definition] : ops_)
    for (const std::string& launched : definition.kernels)
      if (launched == kernel) return &definition;
  return nullptr;
}

std::vector<std::string> OpRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& [name, definition] : ops_) names.push_back(name);
  return names;
}

absl::StatusOr<std::unique_ptr<Op>> OpRegistry::create(
    JitCompiler& jit, Device& device, std::string_view name,
    absl::Span<const std::string> assignments) const {
  TJ_ASSIGN_OR_RETURN(const OpDefinition* definition, lookup(name));
  TJ_ASSIGN_OR_RETURN(OpConfig config, definition->schema.parse(assignments));
  return definition->create(jit, device, config);
}

absl::StatusOr<KernelSpec> opKernelSpec(const OpConfig& config, const std::string& kernel,
                                        const std::string& target, ParameterMap parameters) {
  if (auto it = config.templateOverrides.find(kernel); it != config.templateOverrides.end())
    return KernelSpec::fromFile(it->second, target, std::move(parameters));
  return KernelSpec::shipped(kernel, target, std::move(parameters));
}

namespace {
class SingleKernelOp final : public Op {
 public:
  SingleKernelOp(Device& device, const std::string& kernel, const OpConfig& config) {
    device_ = &device;
    name_ = kernel;
    config_ = config;
  }
  void setKernel(const LoadedKernel& loaded, CompiledKernel compiled) {
    for (const ArgSpec& arg : loaded.metadata().args)
      arguments_.push_back({arg.name, arg.kind == ArgSpec::Kind::kView, arg.dtype});
    launches_.push_back({&loaded, {}});
    compiled_ = std::move(compiled);
    compiled_.binary.clear();  // kept for its times and flags, not its bytes
  }
};
}  // namespace

absl::StatusOr<std::unique_ptr<Op>> createSingleKernelOp(JitCompiler& jit, Device& device,
                                                         const std::string& kernel,
                                                         const OpConfig& config) {
  ParameterMap parameters(config.values().begin(), config.values().end());
  TJ_ASSIGN_OR_RETURN(KernelSpec spec,
                      opKernelSpec(config, kernel, device.target(), std::move(parameters)));
  auto op = std::make_unique<SingleKernelOp>(device, kernel, config);
  CompiledKernel compiled;
  TJ_ASSIGN_OR_RETURN(const LoadedKernel* loaded, jit.load(device, spec, &compiled));
  op->setKernel(*loaded, std::move(compiled));
  return op;
}

OpParameter tunedParameter(std::string name, OpParameterKind kind, std::vector<std::string> legal) {
  return OpParameter{std::move(name), kind, std::nullopt, std::move(legal), ""};
}

absl::Status addSingleKernelOp(OpRegistry& registry, const std::string& kernel,
                               std::string summary, std::vector<OpParameter> parameters) {
  return registry.add({kernel, std::move(summary), OpSchema(kernel, std::move(parameters)),
                       {kernel},
                       [kernel](JitCompiler& jit, Device& device, const OpConfig& config) {
                         return createSingleKernelOp(jit, device, kernel, config);
                       }});
}

}  // namespace tilejit
