// tj-bind-parameters: chooses every parameter's value (given, else the target's tuning, else
// the template's default), checks it against the parameter's domain and replaces the
// parameters by constants: tj.param_value / tj.param_equals / tj.target_value, dtype
// placeholders, view extents, cache layouts and tile shapes. The values stay on the template
// as `tj.parameters` (with `tj.target`); each constraint keeps the names of the parameters it
// reads (`tj.parameters_read`) for tj-check-constraints' message.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/passes.h"
#include "compiler/specialize/specializer.h"
#include "compiler/tuning/tuning_table.h"
#include "support/status.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/Pass.h"

namespace tilejit {

using namespace mlir;

std::string parameterValueText(Attribute attr) {
  if (auto integer = dyn_cast<IntegerAttr>(attr)) return std::to_string(integer.getInt());
  if (auto str = dyn_cast<StringAttr>(attr)) return str.getValue().str();
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto type = dyn_cast<TypeAttr>(attr)) os << type.getValue();
  else os << attr;
  return text;
}

namespace {

// A parameter value as an attribute: an integer given typed is bound as is; text is parsed
// according to the parameter's kind.
absl::StatusOr<Attribute> parseParamValue(tj::ParamOp param, const ParameterValue& given) {
  MLIRContext* context = param.getContext();
  std::string name = param.getSymName().str();
  const std::string& text = given.text();
  switch (param.getKind()) {
    case tj::ParamKind::Int: {
      if (given.isInteger())
        return Attribute(IntegerAttr::get(IntegerType::get(context, 64), given.integer()));
      int64_t value;
      if (!llvm::to_integer(text, value, 10))
        return absl::InvalidArgumentError(
            absl::StrCat("parameter '", name, "': '", text, "' is not an integer; legal values: ",
                         param.describeDomain()));
      return Attribute(IntegerAttr::get(IntegerType::get(context, 64), value));
    }
    case tj::ParamKind::Type: {
      Type type = mlir::parseType(text, context, nullptr, /*isKnownNullTerminated=*/false);
      if (!type)
        return absl::InvalidArgumentError(absl::StrCat(
            "parameter '", name, "': '", text, "' is not a type; legal values: ",
            param.describeDomain()));
      return Attribute(TypeAttr::get(type));
    }
    case tj::ParamKind::String:
      return Attribute(StringAttr::get(context, text));
  }
  return absl::InternalError("unknown parameter kind");
}


// A target's conditional tuning rows replace the value of parameters the caller did not give
// where every `when` parameter is bound to its value (a measured value that holds for one
// variant of the template only, e.g. one KV layout).
absl::Status applyConditionalTuning(tj::TemplateOp templ, const TargetDescription& target,
                                    const std::map<std::string, ParameterValue>& given,
                                    llvm::StringMap<Attribute>& bound) {
  std::string templateName = templ.getSymName().str();
  for (const ConditionalTuning& row : conditionalTuning(target, templateName)) {
    bool applies = true;
    for (const auto& [other, value] : row.when) {
      if (!bound.count(other))
        return absl::InternalError(absl::StrCat("target ", target.name, ": tuning row '", row.name,
                                                "' names a parameter template '", templateName,
                                                "' does not have: ", other));
      applies &= parameterValueText(bound.lookup(other)) == value;
    }
    for (const auto& [name, tuned] : row.set) {
      tj::ParamOp param = templ.lookupParam(name);
      if (!param)
        return absl::InternalError(absl::StrCat("target ", target.name, ": tuning row '", row.name,
                                                "' names a parameter template '", templateName,
                                                "' does not have: ", name));
      if (!applies || given.count(name) || param.getKind() != tj::ParamKind::Int) continue;
      Attribute attr = IntegerAttr::get(IntegerType::get(param.getContext(), 64), tuned);
      if (!param.admits(attr))
        return absl::InternalError(absl::StrCat("target ", target.name, ": tuning row '", row.name,
                                                "' sets ", name, " = ", tuned,
                                                ", which is not allowed; legal values: ",
                                                param.describeDomain()));
      bound[name] = attr;
    }
  }
  return absl::OkStatus();
}


// Chooses each parameter's value: given, else the target's tuning table, else the default.
absl::StatusOr<llvm::StringMap<Attribute>> chooseParameterValues(
    tj::TemplateOp templ, const TargetDescription& target,
    const std::map<std::string, ParameterValue>& values) {
  std::string templateName = templ.getSymName().str();
  llvm::StringMap<Attribute> bound;
  std::vector<std::string> names;
  for (tj::ParamOp param : templ.getParams()) names.push_back(param.getSymName().str());
  for (const auto& [name, text] : values)
    if (!templ.lookupParam(name))
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown parameter '", name, "' for template '", templateName,
          "'; its parameters are: ", absl::StrJoin(names, ", ")));

  for (tj::ParamOp param : templ.getParams()) {
    std::string name = param.getSymName().str();
    Attribute value;
    if (auto given = values.find(name); given != values.end()) {
      TJ_ASSIGN_OR_RETURN(value, parseParamValue(param, given->second));
    } else if (auto tuned = tunedValue(target, templateName + "." + name);
               tuned && param.getKind() == tj::ParamKind::Int) {
      value = IntegerAttr::get(IntegerType::get(param.getContext(), 64), *tuned);
    } else if (Attribute fallback = param.getDefaultValueAttr()) {
      value = fallback;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", name, "' of template '", templateName,
          "' has no value: give one with -p ", name, "=<value> (legal values: ",
          param.describeDomain(), "); target ", target.name, " has no tuned value for it"));
    }
    if (!param.admits(value))
      return absl::InvalidArgumentError(absl::StrCat(
          "parameter '", name, "': value ", parameterValueText(value), " is not allowed for template '",
          templateName, "'; legal values: ", param.describeDomain()));
    bound[name] = value;
  }
  TJ_RETURN_IF_ERROR(applyConditionalTuning(templ, target, values, bound));
  return bound;
}


absl::StatusOr<int64_t> targetValue(const TargetDescription& target, StringRef name) {
  if (name == "warp_size") return target.warpSize;
  if (name == "multiprocessor_count") return target.multiprocessorCount;
  if (name == "shared_bytes") return target.sharedBytesPerProgram;
  if (name == "max_threads") return target.maxThreadsPerProgram;
  return absl::InvalidArgumentError(absl::StrCat("unknown target property '", name.str(), "'"));
}

Attribute bindExtent(Attribute extent, const llvm::StringMap<Attribute>& bound) {
  if (auto name = dyn_cast<StringAttr>(extent)) {
    auto it = bound.find(name.getValue());
    if (it != bound.end()) return it->second;
  }
  return extent;
}

ArrayAttr bindExtents(ArrayAttr extents, const llvm::StringMap<Attribute>& bound) {
  SmallVector<Attribute> out;
  for (Attribute extent : extents) out.push_back(bindExtent(extent, bound));
  return ArrayAttr::get(extents.getContext(), out);
}

// Replaces tj.param_value / tj.param_equals / tj.target_value by constants and binds the
// parameters in types (dtype placeholders, view extents, cache layouts) and tile shapes.
absl::Status substituteParameters(tj::TemplateOp templ, const TargetDescription& target,
                                  const llvm::StringMap<Attribute>& bound) {
  absl::Status status;
  templ.walk([&](Operation* op) {
    OpBuilder builder(op);
    if (auto param = dyn_cast<tj::ParamValueOp>(op)) {
      int64_t value = cast<IntegerAttr>(bound.lookup(param.getParam())).getInt();
      Type type = param.getType();
      Value constant = type.isIndex()
                           ? arith::ConstantIndexOp::create(builder, op->getLoc(), value).getResult()
                           : arith::ConstantIntOp::create(builder, op->getLoc(), type, value).getResult();
      param.replaceAllUsesWith(constant);
      op->erase();
    } else if (auto equals = dyn_cast<tj::ParamEqualsOp>(op)) {
      bool same = bound.lookup(equals.getParam()) == equals.getValue();
      Value constant = arith::ConstantIntOp::create(builder, op->getLoc(), builder.getI1Type(), same);
      equals.replaceAllUsesWith(constant);
      op->erase();
    } else if (auto property = dyn_cast<tj::TargetValueOp>(op)) {
      absl::StatusOr<int64_t> value = targetValue(target, property.getName());
      if (!value.ok()) {
        status = value.status();
        return WalkResult::interrupt();
      }
      Type type = property.getType();
      Value constant = type.isIndex()
                           ? arith::ConstantIndexOp::create(builder, op->getLoc(), *value).getResult()
                           : arith::ConstantIntOp::create(builder, op->getLoc(), type, *value).getResult();
      property.replaceAllUsesWith(constant);
      op->erase();
    } else if (auto tile = op->getAttrOfType<ArrayAttr>("tile")) {
      op->setAttr("tile", bindExtents(tile, bound));
    } else if (Attribute depth = op->getAttr("tj.prefetch_depth")) {
      op->setAttr("tj.prefetch_depth", bindExtent(depth, bound));
    }
    return WalkResult::advance();
  });
  TJ_RETURN_IF_ERROR(status);

  AttrTypeReplacer replacer;
  replacer.addReplacement([&](tj::DTypeParamType type) -> std::optional<Type> {
    Attribute value = bound.lookup(type.getParam());
    if (auto typeAttr = dyn_cast_or_null<TypeAttr>(value)) return typeAttr.getValue();
    return std::nullopt;
  });
  replacer.addReplacement([&](tj::ViewType type) -> std::optional<Type> {
    return tj::ViewType::get(type.getContext(), bindExtents(type.getDims(), bound),
                             type.getElementType());
  });
  replacer.addReplacement([&](tj::KvCacheType type) -> std::optional<Type> {
    auto layout = dyn_cast_or_null<StringAttr>(bindExtent(type.getLayout(), bound));
    return tj::KvCacheType::get(type.getContext(), type.getRole(),
                                bindExtents(type.getDims(), bound), type.getElementType(),
                                layout ? layout : type.getLayout(), type.getScale());
  });
  replacer.recursivelyReplaceElementsIn(templ, /*replaceAttrs=*/true, /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
  return absl::OkStatus();
}


// Names of the parameters a constraint reads, for its error message.
std::vector<std::string> parametersReadBy(tj::ConstraintOp constraint) {
  std::vector<std::string> names;
  constraint.walk([&](Operation* op) {
    if (auto value = dyn_cast<tj::ParamValueOp>(op)) names.push_back(value.getParam().str());
    if (auto equals = dyn_cast<tj::ParamEqualsOp>(op)) names.push_back(equals.getParam().str());
  });
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> bindTemplateParameters(
    tj::TemplateOp templ, const TargetDescription& target,
    const std::map<std::string, ParameterValue>& values) {
  TJ_ASSIGN_OR_RETURN(llvm::StringMap<Attribute> bound,
                      chooseParameterValues(templ, target, values));
  MLIRContext* context = templ.getContext();
  std::vector<std::pair<std::string, std::string>> parameters;
  NamedAttrList boundAttrs;
  for (tj::ParamOp param : templ.getParams()) {
    Attribute value = bound.lookup(param.getSymName());
    parameters.emplace_back(param.getSymName().str(), parameterValueText(value));
    boundAttrs.append(param.getSymName(), value);
  }
  for (auto constraint : templ.getBody().getOps<tj::ConstraintOp>()) {
    SmallVector<Attribute> names;
    for (const std::string& name : parametersReadBy(constraint))
      names.push_back(StringAttr::get(context, name));
    constraint->setAttr(kParametersReadAttr, ArrayAttr::get(context, names));
  }
  TJ_RETURN_IF_ERROR(substituteParameters(templ, target, bound));
  // The parameters now live as constants; keep their values for display and cache keys.
  for (tj::ParamOp param : templ.getParams()) param->erase();
  templ->setAttr("tj.parameters", boundAttrs.getDictionary(context));
  templ->setAttr("tj.target", StringAttr::get(context, target.name));
  return parameters;
}

LogicalResult reportOnTemplate(tj::TemplateOp templ, const absl::Status& status) {
  if (status.ok()) return success();
  templ.emitError() << std::string(status.message());
  return failure();
}

namespace {

// `values` are "name=value" (the -p values of `tilejit compile`).
class BindParametersPass : public PassWrapper<BindParametersPass, OperationPass<ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(BindParametersPass)
  BindParametersPass() = default;
  BindParametersPass(const BindParametersPass& other) : PassWrapper(other) {}
  StringRef getArgument() const final { return "tj-bind-parameters"; }
  StringRef getDescription() const final {
    return "choose every parameter's value for a target and replace the parameters by constants";
  }
  void runOnOperation() override {
    std::map<std::string, ParameterValue> given;
    for (const std::string& value : values) {
      size_t equals = value.find('=');
      if (equals == std::string::npos) {
        getOperation().emitError()
            << "tj-bind-parameters: value '" << value << "' is not name=value";
        return signalPassFailure();
      }
      given[value.substr(0, equals)] = value.substr(equals + 1);
    }
    absl::StatusOr<const TargetDescription*> description = lookupTarget(target.getValue());
    if (!description.ok()) {
      getOperation().emitError() << std::string(description.status().message());
      return signalPassFailure();
    }
    for (auto templ : getOperation().getOps<tj::TemplateOp>()) {
      auto bound = bindTemplateParameters(templ, **description, given);
      if (failed(reportOnTemplate(templ, bound.status()))) return signalPassFailure();
    }
  }

  Option<std::string> target{*this, "target", llvm::cl::desc("target name (sm_90, host, ...)"),
                             llvm::cl::init("host")};
  ListOption<std::string> values{*this, "values",
                                 llvm::cl::desc("given parameter values, name=value")};
};

}  // namespace

std::unique_ptr<Pass> createBindParametersPass() { return std::make_unique<BindParametersPass>(); }

}  // namespace tilejit
