// A pass that runs one step of specializeTemplate (a function returning absl::Status) on every
// template of a module, reporting the step's error on the template: the step's own message,
// which `tilejit compile` prints unchanged.
#pragma once

#include <string>

#include "compiler/specialize/specializer.h"
#include "mlir/Pass/Pass.h"

namespace tilejit {

template <absl::Status (*Step)(mlir::tj::TemplateOp)>
class TemplateStepPass
    : public mlir::PassWrapper<TemplateStepPass<Step>, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  TemplateStepPass(std::string argument, std::string description)
      : argument_(std::move(argument)), description_(std::move(description)) {}
  llvm::StringRef getArgument() const final { return argument_; }
  llvm::StringRef getDescription() const final { return description_; }
  void runOnOperation() override {
    for (auto templ : this->getOperation().template getOps<mlir::tj::TemplateOp>())
      if (mlir::failed(reportOnTemplate(templ, Step(templ)))) return this->signalPassFailure();
  }

 private:
  std::string argument_, description_;
};

}  // namespace tilejit
