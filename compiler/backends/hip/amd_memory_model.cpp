#include "compiler/backends/hip/amd_memory_model.h"

#include <algorithm>

#include "dialects/tj/TjDialect.h"

namespace tilejit {
namespace {

int64_t tileElements(mlir::Type type) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  return tensor && tensor.hasStaticShape() ? tensor.getNumElements() : 0;
}

// A tile's bytes as the library holds it in LDS: f32 or, where wider, its own element.
int64_t scratchTileBytes(mlir::Type type) {
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor) return 0;
  const int64_t element = std::max<int64_t>(4, tensor.getElementTypeBitWidth() / 8);
  return tileElements(type) * element;
}

}  // namespace

int64_t amdLibraryScratchBytes(mlir::Operation* kernel, int64_t budget) {
  int64_t required = 0, staging = 0;
  kernel->walk([&](mlir::Operation* op) {
    if (auto reduce = llvm::dyn_cast<mlir::tj::ReduceOp>(op))
      required = std::max(required, scratchTileBytes(reduce.getSource().getType()));
    if (auto broadcast = llvm::dyn_cast<mlir::tj::BroadcastOp>(op))
      required = std::max(required, scratchTileBytes(broadcast.getSource().getType()));
    auto dot = llvm::dyn_cast<mlir::tj::DotOp>(op);
    if (!dot) return;
    auto a = llvm::cast<mlir::RankedTensorType>(dot.getA().getType());
    auto b = llvm::cast<mlir::RankedTensorType>(dot.getB().getType());
    auto result = llvm::cast<mlir::RankedTensorType>(dot.getType());
    if (!a.hasStaticShape() || !result.hasStaticShape()) return;
    const int64_t m = result.getDimSize(0), n = result.getDimSize(1), k = a.getDimSize(1);
    required = std::max(required, m * n * 4);
    // tj/dot.h stages 16-bit operands of one type as they are, anything else as f32.
    const bool half = a.getElementType() == b.getElementType() &&
                      (a.getElementType().isF16() || a.getElementType().isBF16());
    const int64_t element = half ? 2 : 4;
    staging = std::max(staging, (m + n) * (k + 16 / element) * element);
  });
  const int64_t bytes = std::max(required, std::min(staging, budget));
  // HIP device code refuses a zero-length array: 16 bytes where the kernel needs none.
  return std::max<int64_t>(16, (bytes + 15) / 16 * 16);
}

}  // namespace tilejit
