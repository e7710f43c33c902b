#include "tools/harness/kernel_case.h"

namespace tilejit {

std::unique_ptr<KernelCase> makeMergeAttnStatesCase();
std::unique_ptr<KernelCase> makeReshapeAndCacheCase();

const KernelCase* findKernelCase(std::string_view templateName) {
  static const std::vector<std::unique_ptr<KernelCase>> cases = [] {
    std::vector<std::unique_ptr<KernelCase>> list;
    list.push_back(makeMergeAttnStatesCase());
    list.push_back(makeReshapeAndCacheCase());
    return list;
  }();
  for (const auto& kernelCase : cases)
    if (kernelCase->templateName() == templateName) return kernelCase.get();
  return nullptr;
}

}  // namespace tilejit
