// The CUDA backend's target passes and the queries over what they decide: tensor-core dots'
// accumulators in the mma.sync fragment layout, their operands copied asynchronously into
// shared memory (tj/shared.h's layout), and the library scratch those kernels need (tj/dot.h).
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "compiler/backends/placed_tiles.h"
#include "llvm/ADT/DenseSet.h"
#include "mlir/IR/Value.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tj {
class ClusterMergeStoreOp;
class DotOp;
}

namespace tilejit {

struct MatrixInstruction;
struct TargetDescription;

// GPU targets: loads whose tiles only feed tensor-core dots (directly or through scf.for
// iter_args) copy asynchronously into shared memory. `sharedBytes` is what a program may
// use in all; the device library's scratch (libraryScratchBytes) comes out of it first.
std::unique_ptr<mlir::Pass> createPlaceDotOperandsInSharedMemoryPass(int64_t sharedBytes);

// GPU targets: tiles in a tensor-core dot's accumulator, and the values computed from them
// elementwise, reduced along their rows or broadcast back over them, take the dot's register
// layout (#tj.mma, #tj.mma_rows); tj.convert_layout is inserted where layouts meet.
// The layouts name the target's matrix instruction (tensorCoreInstruction).
std::unique_ptr<mlir::Pass> createAssignMmaLayoutsPass();

// The target the GPU passes work for: the specialized template's `tj.target` (the template
// around or inside `op`) where it has matrix instructions, else `fallback` (tj-opt's
// `target=` option: IR without a target, or specialized for the host); null if unknown.
const TargetDescription* passTarget(mlir::Operation* op, llvm::StringRef fallback);
// The passes' `target=` default, for templates tj-opt reads before specialization.
constexpr const char* kDefaultPassTarget = "sm_90";

// The first of `target`'s matrix instructions that computes `dot` (f16/bf16 operands of the
// instruction's type, static M, N, K multiples of its M, N, K), or null.
const MatrixInstruction* tensorCoreInstruction(mlir::tj::DotOp dot, const TargetDescription& target);
// Whether the device library computes `dot` on tensor cores (tensorCoreInstruction): the dots
// whose operands may sit in shared memory and whose accumulator may keep the fragment layout.
bool isTensorCoreDot(mlir::tj::DotOp dot, const TargetDescription& target);

// Shared memory a program may use when the target description does not say (the pass's
// default for tj-opt): CUDA's limit without the dynamic opt-in.
constexpr int64_t kDefaultSharedBytes = 48 * 1024;

// Bytes of one placed buffer: `slots` copies of the tile in the device library's SharedTile
// row layout (rows of an even number of 16-byte pieces padded to a stride of 2 mod 4 pieces,
// others unpadded), rounded up to a 128-byte line.
int64_t placedBufferBytes(mlir::RankedTensorType tile, int64_t slots);

// Bytes of each placed buffer of a kernel, by buffer id (the dynamic shared memory the
// emitter lays them out in, in id order).
std::map<int64_t, int64_t> placedBufferSizes(mlir::Operation* kernel);

// Whether tj.cluster_merge_store stages its partial in the kernel's dynamic shared memory
// (over the placed buffers, dead by then: it is the kernel's last use of shared memory)
// instead of the library's scratch, which then need not hold it.
bool clusterMergeStagesInPlacedBuffers(mlir::tj::ClusterMergeStoreOp merge);

// The device library's scratch buffer for a kernel (TJ_SMEM_BYTES): the largest tile in f32,
// a power of two in [2 KiB, 32 KiB] (and room for a dot's padded result band), so a kernel of
// small tiles does not reserve the maximum.
// Tiles placed in shared memory and tiles in the mma layouts are left out: they are never
// staged through the scratch whole. `target` null: the template's (passTarget).
int64_t libraryScratchBytes(mlir::Operation* kernel, const TargetDescription* target = nullptr);

}  // namespace tilejit
