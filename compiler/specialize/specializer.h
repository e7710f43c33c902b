// Specialization: a template plus a target and parameter values -> a kernel module whose
// parameters are constants, whose tiles have static shapes, canonicalized and unrolled where
// the template asks. Bad values are rejected before any compile, with a message naming the
// parameter, the value given and the legal values.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/parameter_value.h"
#include "compiler/targets/target_description.h"
#include "dialects/tj/TjDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace tilejit {

// Parses and verifies template text; errors carry file:line:col diagnostics.
absl::StatusOr<mlir::OwningOpRef<mlir::ModuleOp>> parseTemplate(mlir::MLIRContext& context,
                                                                 std::string_view text,
                                                                 std::string_view sourceName);

// The name of the template a text declares (`tj.template @name`, read without parsing), or ""
// where it declares none.
std::string declaredTemplateName(std::string_view text);

// The single tj.template of a parsed module.
absl::StatusOr<mlir::tj::TemplateOp> findTemplate(mlir::ModuleOp module);

struct SpecializedKernel {
  mlir::OwningOpRef<mlir::ModuleOp> module;  // a module holding the specialized template
  mlir::tj::TemplateOp templateOp;
  // Every parameter with its final value (given, from the target's tuning table, or the
  // template's default), in template order, as text.
  std::vector<std::pair<std::string, std::string>> parameters;
};

// `values` maps parameter names to their values (typed, or text: "128", "bf16", "shuffled"
// parsed by the parameter's kind). The parsed module is not modified (the specialization
// works on a clone).
absl::StatusOr<SpecializedKernel> specializeTemplate(
    mlir::ModuleOp parsed, const TargetDescription& target,
    const std::map<std::string, ParameterValue>& values);

// The steps of specializeTemplate that tj-opt also runs as passes (tj-bind-parameters,
// tj-check-constraints, tj-unroll-marked-loops); each pass reports the step's error on the
// template op.

// Chooses every parameter's value (given, else the target's tuning, else the default) and
// replaces the parameters by constants; returns the values as text, in template order.
absl::StatusOr<std::vector<std::pair<std::string, std::string>>> bindTemplateParameters(
    mlir::tj::TemplateOp templ, const TargetDescription& target,
    const std::map<std::string, ParameterValue>& values);

// Rejects a bound template whose constraints do not hold; erases those that do.
absl::Status checkTemplateConstraints(mlir::tj::TemplateOp templ);

// Fully unrolls the loops marked `tj.unroll`; an error where a bound is not constant.
absl::Status unrollMarkedLoops(mlir::tj::TemplateOp templ);

// A parameter value as text ("128", "bf16", "shuffled"), as given on the command line.
std::string parameterValueText(mlir::Attribute value);

// The parameters a constraint reads, kept by tj-bind-parameters for tj-check-constraints.
constexpr char kParametersReadAttr[] = "tj.parameters_read";

// Turns a step's failure into an error diagnostic on the template.
mlir::LogicalResult reportOnTemplate(mlir::tj::TemplateOp templ, const absl::Status& status);

// Folds a constraint/launch region whose inputs are constants and returns the yielded
// integer values, or nullopt for a value that did not fold to a constant.
std::vector<std::optional<int64_t>> foldRegionToConstants(mlir::Region& region);

}  // namespace tilejit
