#include "compiler/backends/matrix_instruction_attr.h"

#include "compiler/targets/target_description.h"

namespace tilejit {
namespace {

std::vector<int64_t> flatten(const std::vector<std::array<int64_t, 2>>& bases) {
  std::vector<int64_t> flat;
  for (const auto& [row, col] : bases) flat.insert(flat.end(), {row, col});
  return flat;
}

mlir::tj::FragmentLayoutAttr fragmentAttr(mlir::MLIRContext* context,
                                          const FragmentOwnership& ownership) {
  if (ownership.registerBases.empty() && ownership.laneBases.empty()) return {};
  return mlir::tj::FragmentLayoutAttr::get(context, flatten(ownership.registerBases),
                                           flatten(ownership.laneBases));
}

}  // namespace

mlir::tj::MatrixInstrAttr matrixInstrAttr(mlir::MLIRContext* context,
                                          const MatrixInstruction& instruction) {
  return mlir::tj::MatrixInstrAttr::get(context, instruction.name, instruction.m, instruction.n,
                                        instruction.k, instruction.lanes,
                                        fragmentAttr(context, instruction.a),
                                        fragmentAttr(context, instruction.b),
                                        fragmentAttr(context, instruction.acc));
}

}  // namespace tilejit
