// Places loaded tiles that only feed tensor-core dots in shared memory (GPU targets).
//
// A dot reads its operands from shared memory (ldmatrix); a tile loaded into registers has
// to be written there first, behind a barrier, every time. When a load's value flows only
// into dot operands - directly or through scf.for iter_args, which is how a template
// prefetches the next tile - the load can instead copy global memory straight into shared
// memory, asynchronously (cp.async), so the copy of the next tile overlaps the current
// tile's math and costs no registers. The pass marks such loads with `shared_buffer` (one
// buffer per chain of loads linked by iter_args) and `shared_slots` (one per loop-carried
// value of the chain, plus one for the copy in flight), within a shared-memory
// budget, in program order. Everything else stays as it was.
//
// An fp8 tile (a cache of 8-bit codes) feeds its dot through one exact widening (arith.extf
// to the dot's 16-bit type, see tj-fold-exact-float-round-trips): such a chain is placed as
// 8-bit codes - half the bytes of shared memory and of each copy's registers - and the dot
// widens the codes as it reads its b operand (tj/dot.h); the widening itself then emits no
// code. Only as b: the library widens b fragments, a operands are read by ldmatrix.
#include "compiler/backends/cuda/passes.h"

#include <cassert>

#include "compiler/targets/target_description.h"

#include "dialects/tj/TjDialect.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"

namespace tilejit {
namespace {

using namespace mlir;

constexpr int64_t kMaxBuffers = 8;
// The device library's limit (SharedTile slots of one buffer).
constexpr int64_t kMaxSlots = 4;

bool isHalfTile(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  return tile && tile.getRank() == 2 && tile.hasStaticShape() &&
         (tile.getElementType().isF16() || tile.getElementType().isBF16()) &&
         (tile.getDimSize(1) * 2) % 16 == 0;
}

// A tile of fp8 codes whose rows are whole 16-byte pieces.
bool isCodeTile(Type type) {
  auto tile = dyn_cast<RankedTensorType>(type);
  return tile && tile.getRank() == 2 && tile.hasStaticShape() &&
         isa<Float8E4M3FNType, Float8E5M2Type>(tile.getElementType()) && tile.getDimSize(1) % 16 == 0;
}

bool isPlaceableTile(Type type) { return isHalfTile(type) || isCodeTile(type); }

// A widening of a placed code tile to a 16-bit type whose every use is a tensor-core dot's b.
bool isWidenedForDotsOnly(arith::ExtFOp widen, const TargetDescription& target) {
  if (!isHalfTile(widen.getType()) || widen->use_empty()) return false;
  return llvm::all_of(widen->getUses(), [&](OpOperand& use) {
    auto dot = dyn_cast<tj::DotOp>(use.getOwner());
    return dot && use.getOperandNumber() == 1 && isTensorCoreDot(dot, target);
  });
}

// Whether `value` (an index) is provably a multiple of `factor`: constants, products with
// such a factor, sums of such terms, and scf.for induction variables whose start and step are.
bool isMultipleOf(Value value, int64_t factor, int depth = 0) {
  if (depth > 16) return false;
  IntegerAttr constant;
  if (matchPattern(value, m_Constant(&constant))) return constant.getInt() % factor == 0;
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    return loop && arg == loop.getInductionVar() &&
           isMultipleOf(loop.getLowerBound(), factor, depth + 1) &&
           isMultipleOf(loop.getStep(), factor, depth + 1);
  }
  Operation* op = value.getDefiningOp();
  if (isa_and_nonnull<arith::MulIOp>(op))
    return isMultipleOf(op->getOperand(0), factor, depth + 1) ||
           isMultipleOf(op->getOperand(1), factor, depth + 1);
  if (isa_and_nonnull<arith::AddIOp, arith::SubIOp>(op))
    return isMultipleOf(op->getOperand(0), factor, depth + 1) &&
           isMultipleOf(op->getOperand(1), factor, depth + 1);
  return false;
}

// Loads whose tile is placed transposed ([cols, rows]): shuffled V.
bool isTransposedPlacement(tj::PagedLoadOp load) {
  auto cache = load.getCache().getType();
  return cache.isShuffled() && !cache.isKey();
}
bool isTransposedPlacement(Operation* op) {
  auto load = dyn_cast<tj::PagedLoadOp>(op);
  return load && isTransposedPlacement(load);
}

bool isPlaceableLoad(Operation* op) {
  if (auto load = dyn_cast<tj::LoadOp>(op))
    return load.getView().getType().getRank() >= 2 && isPlaceableTile(load.getType());
  if (auto load = dyn_cast<tj::PagedLoadOp>(op)) {
    // Shuffled V's 16-byte pieces are 8 tokens of one dim: its tile is placed transposed, where
    // a row (a dim) takes whole pieces, so the tile must start on a piece (a first token that
    // is provably a multiple of 8) and span whole ones.
    auto tile = cast<RankedTensorType>(load.getType());
    if (!isPlaceableTile(tile)) return false;
    return !isTransposedPlacement(load) ||
           (tile.getDimSize(0) % 8 == 0 && isMultipleOf(load.getStart(), 8));
  }
  return false;
}

// Slots are used strictly in turn, so a chain with several carried values is only placed in
// the form tj-deepen-loop-prefetch makes: all of one loop, one of them read (the tile in use),
// each other only yielded (into the carry one step nearer), and one new load per iteration.
// Anything else (a tile carried into a nested loop that keeps reading it, say) could have a
// slot rewritten while it is still read.
bool isPrefetchShift(ArrayRef<BlockArgument> carried, ArrayRef<Operation*> loads) {
  auto loop = dyn_cast<scf::ForOp>(carried.front().getOwner()->getParentOp());
  if (!loop) return false;
  Operation* yield = loop.getBody()->getTerminator();
  int read = 0;
  for (BlockArgument arg : carried) {
    if (arg.getOwner()->getParentOp() != loop.getOperation()) return false;
    bool onlyYielded = arg.hasOneUse() && *arg.getUsers().begin() == yield;
    if (!onlyYielded) ++read;
  }
  int inBody = 0;
  for (Operation* load : loads)
    if (load->getParentOp() == loop.getOperation()) ++inBody;
    else if (loop->isAncestor(load)) return false;
  return read == 1 && inBody == 1;
}

// The loads and loop-carried values of one chain, or failure when a value of the chain has
// a use other than a matrix dot's a/b operand or an scf.for carry.
struct Chain {
  SmallVector<Operation*> loads;
  int64_t carries = 0;
  bool transposed = false;  // placed [cols, rows]: only ever a dot's b operand
};

FailureOr<Chain> collectChain(Operation* seed, const TargetDescription& target) {
  Chain chain;
  chain.transposed = isTransposedPlacement(seed);
  llvm::SetVector<Value> values;
  values.insert(seed->getResult(0));
  for (size_t i = 0; i < values.size(); ++i) {
    Value value = values[i];
    if (Operation* def = value.getDefiningOp()) {
      if (!isPlaceableLoad(def)) {
        if (!isa<scf::ForOp>(def)) return failure();
      } else if (!llvm::is_contained(chain.loads, def)) {
        chain.loads.push_back(def);
      }
    }
    // A block argument of a loop body: its init value and what the body yields for it.
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
      if (!loop || arg.getArgNumber() == 0) return failure();
      unsigned index = arg.getArgNumber() - 1;
      values.insert(loop.getInitArgs()[index]);
      values.insert(loop.getYieldedValues()[index]);
      values.insert(loop.getResult(index));
    }
    if (auto result = dyn_cast<OpResult>(value))
      if (auto loop = dyn_cast<scf::ForOp>(result.getOwner())) {
        unsigned index = result.getResultNumber();
        values.insert(loop.getRegionIterArgs()[index]);
      }
    for (OpOperand& use : value.getUses()) {
      Operation* user = use.getOwner();
      if (auto dot = dyn_cast<tj::DotOp>(user)) {
        if (use.getOperandNumber() > 1 || !isTensorCoreDot(dot, target)) return failure();
        // A transposed tile is read as b (the dot then reads b the other way), never as a.
        if (chain.transposed && use.getOperandNumber() != 1) return failure();
      } else if (auto widen = dyn_cast<arith::ExtFOp>(user)) {
        // Codes widened on the dot's read (never transposed: only 16-bit caches shuffle).
        if (!isCodeTile(value.getType()) || chain.transposed || !isWidenedForDotsOnly(widen, target))
          return failure();
      } else if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (use.getOperandNumber() < loop.getNumControlOperands()) return failure();
        values.insert(loop.getTiedLoopRegionIterArg(&use));
      } else if (isa<scf::YieldOp>(user) && isa<scf::ForOp>(user->getParentOp())) {
        auto loop = cast<scf::ForOp>(user->getParentOp());
        values.insert(loop.getRegionIterArgs()[use.getOperandNumber()]);
      } else {
        return failure();
      }
    }
  }
  SmallVector<BlockArgument> carried;
  for (Value value : values)
    if (auto arg = dyn_cast<BlockArgument>(value)) carried.push_back(arg);
  chain.carries = int64_t(carried.size());
  // One slot per carried value (the tile in use and those prefetched after it, see
  // tj-deepen-loop-prefetch) and one for the copy in flight.
  if (chain.carries > kMaxSlots - 1) return failure();
  if (chain.carries > 1 && !isPrefetchShift(carried, chain.loads)) return failure();
  for (Operation* load : chain.loads)
    if (load->getResult(0).getType() != seed->getResult(0).getType() ||
        isTransposedPlacement(load) != chain.transposed)
      return failure();
  return chain;
}

class PlaceDotOperandsInSharedMemory
    : public PassWrapper<PlaceDotOperandsInSharedMemory, OperationPass<ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PlaceDotOperandsInSharedMemory)

  PlaceDotOperandsInSharedMemory() = default;
  PlaceDotOperandsInSharedMemory(const PlaceDotOperandsInSharedMemory& other) : PassWrapper(other) {}
  explicit PlaceDotOperandsInSharedMemory(int64_t limit) { sharedBytes = limit; }

  StringRef getArgument() const override { return "tj-place-dot-operands-in-shared-memory"; }
  StringRef getDescription() const override {
    return "loads whose tiles only feed tensor-core dots copy straight into shared memory";
  }

  void runOnOperation() override {
    const TargetDescription* target = passTarget(getOperation(), targetName);
    if (!target) {
      getOperation().emitError(std::string(lookupTarget(targetName).status().message()));
      return signalPassFailure();
    }
    // Every chain that could be placed, in program order.
    SmallVector<Chain> chains;
    llvm::DenseSet<Operation*> seen;
    getOperation().walk([&](Operation* op) {
      if (!isPlaceableLoad(op) || seen.contains(op)) return;
      FailureOr<Chain> chain = collectChain(op, *target);
      if (failed(chain)) {
        seen.insert(op);
        return;
      }
      seen.insert(chain->loads.begin(), chain->loads.end());
      if (chains.size() < kMaxBuffers) chains.push_back(*chain);
    });
    // The longest prefix that fits beside the library's scratch, which shrinks as tiles leave
    // registers (placed tiles are never staged through it).
    Builder builder(&getContext());
    for (size_t count = chains.size(); count > 0; --count) {
      int64_t bytes = 0;
      for (size_t i = 0; i < chains.size(); ++i) {
        int64_t slots = chains[i].carries + 1;
        for (Operation* load : chains[i].loads) {
          if (i < count) {
            load->setAttr("shared_buffer", builder.getI64IntegerAttr(int64_t(i)));
            load->setAttr("shared_slots", builder.getI64IntegerAttr(slots));
            if (chains[i].transposed) load->setAttr("shared_transposed", builder.getUnitAttr());
          } else {
            unplace(load);
          }
        }
        if (i < count) bytes += placedBufferBytes(placedTileShape(chains[i].loads.front()), slots);
      }
      if (bytes + libraryScratchBytes(getOperation(), target) <= sharedBytes) return;
    }
    for (Chain& chain : chains)
      for (Operation* load : chain.loads) unplace(load);
  }

  static void unplace(Operation* load) {
    load->removeAttr("shared_buffer");
    load->removeAttr("shared_slots");
    load->removeAttr("shared_transposed");
  }

 private:
  Option<int64_t> sharedBytes{*this, "shared-bytes",
                              llvm::cl::desc("shared memory a program may use in all"),
                              llvm::cl::init(kDefaultSharedBytes)};
  Option<std::string> targetName{*this, "target",
                                 llvm::cl::desc("target of templates without tj.target"),
                                 llvm::cl::init(kDefaultPassTarget)};
};

}  // namespace

const TargetDescription* passTarget(Operation* op, StringRef fallback) {
  auto templ = dyn_cast<tj::TemplateOp>(op);
  if (!templ) templ = op->getParentOfType<tj::TemplateOp>();
  if (!templ) op->walk([&](tj::TemplateOp inner) { templ = templ ? templ : inner; });
  if (StringAttr name = templ ? templ->getAttrOfType<StringAttr>("tj.target") : StringAttr())
    if (absl::StatusOr<const TargetDescription*> target = lookupTarget(name.getValue().str());
        target.ok() && !(*target)->matrixInstructions.empty())
      return *target;
  absl::StatusOr<const TargetDescription*> target = lookupTarget(fallback.str());
  return target.ok() ? *target : nullptr;
}

const MatrixInstruction* tensorCoreInstruction(tj::DotOp dot, const TargetDescription& target) {
  auto a = cast<RankedTensorType>(dot.getA().getType());
  auto b = cast<RankedTensorType>(dot.getB().getType());
  auto acc = cast<RankedTensorType>(dot.getAcc().getType());
  if (!isHalfTile(a) || !isHalfTile(b) || a.getElementType() != b.getElementType()) return nullptr;
  if (!acc.hasStaticShape()) return nullptr;
  int64_t m = acc.getDimSize(0), n = acc.getDimSize(1), k = a.getDimSize(1);
  const char* operandType = a.getElementType().isF16() ? "f16" : "bf16";
  for (const MatrixInstruction& instruction : target.matrixInstructions)
    if (instruction.operandType == operandType && m % instruction.m == 0 &&
        n % instruction.n == 0 && k % instruction.k == 0)
      return &instruction;
  return nullptr;
}

bool isTensorCoreDot(tj::DotOp dot, const TargetDescription& target) {
  return tensorCoreInstruction(dot, target) != nullptr;
}

std::unique_ptr<Pass> createPlaceDotOperandsInSharedMemoryPass(int64_t sharedBytes) {
  return std::make_unique<PlaceDotOperandsInSharedMemory>(sharedBytes);
}

// The CUDA library's shared-tile layout (tj/shared.h SharedTile): rows of whole 16-byte
// pieces (isHalfTile admits no others), an even number of them padded to a stride of 2 mod 4
// pieces, an odd number unpadded; each buffer starts on a 128-byte line.
int64_t placedBufferBytes(RankedTensorType tile, int64_t slots) {
  int64_t rowBytes = tile.getDimSize(1) * (tile.getElementTypeBitWidth() / 8);
  assert(rowBytes % 16 == 0 && "placed tiles hold rows of whole 16-byte pieces");
  // tj/shared.h SharedTile: rows of whole 128-byte lines are XOR-swizzled, unpadded; other
  // rows of whole 64-byte units take a 32-byte pad.
  if (rowBytes % 128 != 0 && rowBytes % 64 == 0) rowBytes += 32;
  return llvm::alignTo(slots * tile.getDimSize(0) * rowBytes, 128);
}

std::map<int64_t, int64_t> placedBufferSizes(Operation* kernel) {
  std::map<int64_t, int64_t> sizes;
  kernel->walk([&](Operation* op) {
    auto buffer = op->getAttrOfType<IntegerAttr>("shared_buffer");
    auto slots = op->getAttrOfType<IntegerAttr>("shared_slots");
    if (buffer && slots) sizes[buffer.getInt()] = placedBufferBytes(placedTileShape(op), slots.getInt());
  });
  return sizes;
}

bool clusterMergeStagesInPlacedBuffers(tj::ClusterMergeStoreOp merge) {
  auto partial = cast<RankedTensorType>(merge.getPartial().getType());
  auto kernel = merge->getParentOfType<tj::KernelOp>();
  if (!kernel || !partial.hasStaticShape()) return false;
  int64_t placed = 0;
  for (auto [buffer, bytes] : placedBufferSizes(kernel)) placed += bytes;
  return partial.getNumElements() * 4 <= placed;
}

int64_t libraryScratchBytes(Operation* kernel, const TargetDescription* target) {
  // The CUDA library's plan; backends without matrix instructions (which ignore the size)
  // are planned as the default target, so their emitted source does not depend on it.
  if (!target) target = passTarget(kernel, kDefaultPassTarget);
  llvm::DenseSet<Value> placed = placedTileValues(kernel);
  int64_t largestTile = 0, dotBand = 0, dotStaging = 0;
  kernel->walk([&](Operation* op) {
    // Tiles in the mma layouts never pass through the scratch whole: their row exchanges
    // have their own ring, and a dot stages an mma operand in chunks that fit.
    for (Value result : op->getResults())
      if (auto tensor = dyn_cast<RankedTensorType>(result.getType());
          tensor && tensor.hasStaticShape() && !placed.contains(result) &&
          tj::getTileLayout(tensor) == tj::TileLayout::kBlocked)
        largestTile = std::max(largestTile, tensor.getNumElements());
    // A cluster merge stages its whole partial, whatever its layout, for the cluster to read:
    // over the placed buffers where they hold it, else here.
    if (auto merge = dyn_cast<tj::ClusterMergeStoreOp>(op))
      if (auto partial = cast<RankedTensorType>(merge.getPartial().getType());
          partial.hasStaticShape() && !clusterMergeStagesInPlacedBuffers(merge))
        largestTile = std::max(largestTile, partial.getNumElements());
    auto dot = dyn_cast<tj::DotOp>(op);
    if (!dot) return;
    // A dot returns a canonical result through 16-row bands of padded f32 rows (tj/dot.h).
    if (tj::getTileLayout(dot.getType()) == tj::TileLayout::kBlocked)
      dotBand = std::max(dotBand, 16 * (cast<RankedTensorType>(dot.getType()).getDimSize(1) + 4) * 4);
    // A tensor-core dot stages its register operands (an mma-layout softmax's probabilities)
    // in K chunks that fit the scratch; a whole K in one chunk needs no barriers of its own
    // (tj/dot.h's plan: rows of K + 8 elements for a and for a transposed b, of N (+ 8 where
    // N / 8 is even) for b).
    if (isTensorCoreDot(dot, *target)) {
      auto a = cast<RankedTensorType>(dot.getA().getType());
      auto b = cast<RankedTensorType>(dot.getB().getType());
      const int64_t m = a.getDimSize(0), k = a.getDimSize(1);
      const int64_t n = dot.getTransB() ? b.getDimSize(0) : b.getDimSize(1);
      const int64_t element = a.getElementTypeBitWidth() / 8;
      const int64_t strideN = n + ((n / 8) % 2 == 0 ? 8 : 0);
      int64_t staged = 0;
      if (!placed.contains(dot.getA())) staged += m * (k + 8) * element;
      if (!placed.contains(dot.getB())) staged += (dot.getTransB() ? n * (k + 8) : k * strideN) * element;
      dotStaging = std::max(dotStaging, staged);
    }
  });
  int64_t bytes = 2048;
  while (bytes < largestTile * 4 && bytes < 32768) bytes *= 2;
  const int64_t dotBytes = std::max(dotBand, dotStaging);
  return std::min<int64_t>(std::max(bytes, (dotBytes + 511) / 512 * 512), 32768);
}

}  // namespace tilejit
