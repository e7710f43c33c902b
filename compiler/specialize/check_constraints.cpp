// tj-check-constraints: evaluates every tj.constraint of a bound template (tj-bind-parameters
// first) and rejects the specialization at the first one that folds to false, naming its
// message and the values of the parameters it reads; constraints that hold are erased.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/passes.h"
#include "compiler/specialize/template_step_pass.h"

namespace tilejit {

using namespace mlir;

absl::Status checkTemplateConstraints(tj::TemplateOp templ) {
  auto parameters = templ->getAttrOfType<DictionaryAttr>("tj.parameters");
  for (auto constraint : llvm::make_early_inc_range(templ.getBody().getOps<tj::ConstraintOp>())) {
    std::vector<std::optional<int64_t>> folded = foldRegionToConstants(constraint.getBody());
    if (folded.size() != 1 || !folded[0])
      return absl::InternalError(absl::StrCat("constraint '", constraint.getMessage().str(),
                                              "' did not fold to a constant"));
    if (*folded[0] != 0) {
      constraint->erase();
      continue;
    }
    std::vector<std::string> given;
    if (auto names = constraint->getAttrOfType<ArrayAttr>(kParametersReadAttr))
      for (auto name : names.getAsValueRange<StringAttr>()) {
        Attribute value = parameters ? parameters.get(name) : Attribute();
        given.push_back(absl::StrCat(name.str(), "=", value ? parameterValueText(value) : "?"));
      }
    return absl::InvalidArgumentError(absl::StrCat(
        "template '", templ.getSymName().str(), "' rejects this specialization: ",
        constraint.getMessage().str(), " (", absl::StrJoin(given, ", "), ")"));
  }
  return absl::OkStatus();
}

std::unique_ptr<Pass> createCheckConstraintsPass() {
  return std::make_unique<TemplateStepPass<&checkTemplateConstraints>>(
      "tj-check-constraints",
      "reject a bound template whose constraints do not hold; erase those that do");
}

}  // namespace tilejit
