#include "tools/harness/op_reference.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "support/status.h"

namespace tilejit {

absl::Status registerShippedReferences(OpReferenceRegistry& registry);  // generated

const OpReferenceRegistry& OpReferenceRegistry::shipped() {
  static const OpReferenceRegistry* registry = [] {
    auto* created = new OpReferenceRegistry;
    created->status_ = registerShippedReferences(*created);
    return created;
  }();
  return *registry;
}

absl::Status OpReferenceRegistry::add(OpReference reference) {
  std::string op = reference.op;
  if (!reference.check) return absl::InvalidArgumentError("op '" + op + "': a reference needs a check");
  if (!references_.emplace(op, std::move(reference)).second)
    return absl::AlreadyExistsError("op '" + op + "' has two reference checks");
  return absl::OkStatus();
}

absl::Status OpReferenceRegistry::addKernelCase(const std::string& op,
                                                std::unique_ptr<KernelCase> kernelCase) {
  const KernelCase* registered = kernelCase.get();
  cases_.push_back(std::move(kernelCase));
  // "load ms": creating the op (compile or cache, module load).
  OpCheck check = [registered](JitCompiler& jit, Device& device, const OpDefinition& definition,
                               const OpConfig& config, const OpCheckOptions& options)
      -> absl::StatusOr<OpCheckReport> {
    auto start = std::chrono::steady_clock::now();
    TJ_ASSIGN_OR_RETURN(std::unique_ptr<Op> op, definition.create(jit, device, config));
    RunReport run;
    run.loadSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    run.compiled = op->compiled();
    if (op->launches().empty())
      return absl::InternalError(absl::StrCat("op '", definition.name, "' launches nothing"));
    RunOptions runOptions;
    runOptions.shape = options.shape;
    runOptions.iterations = options.iterations;
    runOptions.seed = options.seed;
    TJ_RETURN_IF_ERROR(runKernelCaseOn(
        device, op->launches().front().kernel->metadata(), *registered, runOptions,
        [&op](absl::Span<const KernelArg> args) { return op->run(args); }, run));
    return OpCheckReport{run.compiled, run.loadSeconds, run.check, run.medianMs, run.bytes};
  };
  return add({op, {}, std::move(check)});
}

const OpReference* OpReferenceRegistry::find(std::string_view op) const {
  auto it = references_.find(op);
  return it == references_.end() ? nullptr : &it->second;
}

const KernelCase* OpReferenceRegistry::findKernelCase(std::string_view templateName) const {
  for (const auto& kernelCase : cases_)
    if (kernelCase->templateName() == templateName) return kernelCase.get();
  return nullptr;
}

}  // namespace tilejit
