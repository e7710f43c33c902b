#include "tools/harness/kernel_case.h"
#include "tools/harness/op_reference.h"

namespace tilejit {

const KernelCase* findKernelCase(std::string_view templateName) {
  return OpReferenceRegistry::shipped().findKernelCase(templateName);
}

}  // namespace tilejit
