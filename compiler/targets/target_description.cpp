#include "compiler/targets/target_description.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tilejit {
namespace {

std::vector<TargetDescription> buildTargets() {
  // Bases are {row, col} per bit of the fragment element index, then per bit of the lane id.
  // mma.sync m16n8k16 (PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point type"):
  // groupID = lane / 4, threadID_in_group = lane % 4; A: row = groupID + 8 * (i / 2 % 2),
  // col = 2 * (lane % 4) + i % 2 + 8 * (i / 4); B: row = 2 * (lane % 4) + i % 2 + 8 * (i / 2),
  // col = groupID; C: row = groupID + 8 * (i / 2), col = 2 * (lane % 4) + i % 2.
  const FragmentOwnership mmaA{{{0, 1}, {8, 0}, {0, 8}}, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}};
  const FragmentOwnership mmaB{{{1, 0}, {8, 0}}, {{2, 0}, {4, 0}, {0, 1}, {0, 2}, {0, 4}}};
  const FragmentOwnership mmaC{{{0, 1}, {8, 0}}, {{0, 2}, {0, 4}, {1, 0}, {2, 0}, {4, 0}}};
  const MatrixInstruction mmaF16{"mma.sync.m16n8k16", 16, 8, 16, "f16", 32, mmaA, mmaB, mmaC};
  const MatrixInstruction mmaBF16{"mma.sync.m16n8k16", 16, 8, 16, "bf16", 32, mmaA, mmaB, mmaC};
  // MFMA, wave64 (AMD Matrix Instruction Calculator, CDNA2/CDNA3, --detail-instruction; CDNA3
  // ISA 7.1): A[i][k] at lane i + M * (k / kL), element k % kL with kL = K / (64 / M); B the
  // same with j for i; 32x32 C[i][j] at lane j + 32 * (i / 4 % 2), element i % 4 + 4 * (i / 8);
  // 16x16 C[i][j] at lane j + 16 * (i / 4), element i % 4.
  const FragmentOwnership mfma16C{{{1, 0}, {2, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}}};
  const MatrixInstruction mfma16{
      "mfma_f32_16x16x16bf16_1k", 16, 16, 16, "bf16", 64,
      {{{0, 1}, {0, 2}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 4}, {0, 8}}},
      {{{1, 0}, {2, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {4, 0}, {8, 0}}}, mfma16C};
  const MatrixInstruction mfma32{
      "mfma_f32_32x32x8bf16_1k", 32, 32, 8, "bf16", 64,
      {{{0, 1}, {0, 2}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {16, 0}, {0, 4}}},
      {{{1, 0}, {2, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}},
      {{{1, 0}, {2, 0}, {8, 0}, {16, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 16}, {4, 0}}}};
  // gfx950's double-rate form: eight operand elements per lane (kL = 8).
  const MatrixInstruction mfma16k32{
      "mfma_f32_16x16x32_bf16", 16, 16, 32, "bf16", 64,
      {{{0, 1}, {0, 2}, {0, 4}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}, {0, 16}}},
      {{{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}, {16, 0}}}, mfma16C};
  // WMMA, wave32 (RDNA3 ISA 7.9 "Wave Matrix Multiply Accumulate"; RDNA4 ISA 7.9; GPUOpen's
  // "How to accelerate AI applications on RDNA 3 using WMMA"). gfx11: lanes l and l + 16 both
  // hold A row l % 16 (B column l % 16) whole, element k: the lane bit 4 basis is zero;
  // C[i][j] at lane j + 16 * (i % 2), element i / 2. gfx12: no replication, half the A/B
  // elements: A[i][k] at lane i + 16 * (k / 8), element k % 8 (B likewise); C[i][j] at lane
  // j + 16 * (i / 8), element i % 8.
  const MatrixInstruction wmma{
      "wmma_f32_16x16x16_bf16", 16, 16, 16, "bf16", 32,
      {{{0, 1}, {0, 2}, {0, 4}, {0, 8}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 0}}},
      {{{1, 0}, {2, 0}, {4, 0}, {8, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {0, 0}}},
      {{{2, 0}, {4, 0}, {8, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {1, 0}}}};
  const MatrixInstruction wmmaGfx12{
      "wmma_f32_16x16x16_bf16_w32_gfx12", 16, 16, 16, "bf16", 32,
      {{{0, 1}, {0, 2}, {0, 4}}, {{1, 0}, {2, 0}, {4, 0}, {8, 0}, {0, 8}}},
      {{{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}},
      {{{1, 0}, {2, 0}, {4, 0}}, {{0, 1}, {0, 2}, {0, 4}, {0, 8}, {8, 0}}}};

  // Tuning shared by the NVIDIA targets (sm_80 inherits the H200's values: not measured).
  std::map<std::string, int64_t> nvidiaTuning = {
      // Measured on the H200 (bench/results/2026-11-29/sweep.jsonl): best of
      // heads_per_program {8,16,32} x num_warps {2,4,8} at 4K and 32K tokens.
      {"merge_attn_states.num_warps", 2},
      {"merge_attn_states.heads_per_program", 16},
      // Registers limit occupancy (Nsight Compute, ncu-run4-kernels.txt); best cap of
      // min_blocks_per_sm {0,10,12,16} / {0,16,24,32} at 32K tokens (sweep-occupancy.jsonl).
      {"merge_attn_states.min_blocks_per_sm", 10},
      {"reshape_and_cache.min_blocks_per_sm", 16},
      // Best of tokens_per_program {1,2,4,8} x num_warps {1,2,4} at 32K tokens.
      {"reshape_and_cache.num_warps", 1},
      {"reshape_and_cache.tokens_per_program", 2},
      // Best of block_n {32,64,128} x num_warps {4,8} x partition {256,1024} on five cells
      // (sweep.jsonl); the decode benchmark also records partition sizes 64..1024 per cell.
      {"paged_decode.q_rows", 16},
      {"paged_decode.block_n", 32},
      {"paged_decode.partition_size", 1024},
      {"paged_decode.num_warps", 4},
      // Registers capped to the programs shared memory lets reside (the emitter clamps the
      // hint to that): session 2 measured 168 -> 128 registers, 2.45 -> 2.64 TB/s at 64x4096
      // tokens (bench/results/2026-11-29/README.md). Unpadded shared rows fit 5 programs of
      // 32-token tiles at head 128 (93 registers, no spills) and 3 of 64-token tiles; hints
      // 0, 2 and 5 measured within 1 % of each other at 64-token tiles
      // (bench/results/2026-12-01/s9-swizzle, c2).
      {"paged_decode.min_blocks_per_sm", 5},
      // The shuffled layout places K like the standard one and V transposed ([head_size,
      // tokens]). Hints 5 and 0 measured within 1 % of each other on six cells
      // (bench/results/2026-12-01/s13-shuffled, V then looked up per piece: 166 registers at
      // GQA 8 x head 128; one lookup per thread now: 123), so it keeps none.
      {"paged_decode.min_blocks_per_sm[kv_layout=shuffled]", 0},
      // One load of 16 partitions' outputs per step: contexts up to 16 x partition_size merge
      // in one memory round trip (bench/profile_small_batch.py).
      {"paged_decode_reduce.partitions_per_step", 16},
      {"paged_decode_reduce.num_warps", 4},
      {"paged_decode_reduce.partition_size", 1024},
      // Merges of at least 2048 (sequence, q head) pairs take 8 heads per program: 43 vs 57 us
      // at 256 x 64 heads x 4 partitions; one head per program stays best for small batches
      // (session4/merge-heads).
      {"paged_decode_reduce.large_merge_pairs", 2048},
      {"paged_decode_reduce.large_merge_heads_per_program", 8},
      // ... at most 32 [head_size] tiles (heads x partitions per step) per program: 8 x 16
      // took 149 us where 2 x 16 took 38 (64 x 64 heads x 16 partitions, session5/merge).
      {"paged_decode_reduce.large_merge_tiles", 32},
  };
  // AMD values are the architecture's natural sizes (not measured: no AMD GPU here).
  std::map<std::string, int64_t> amdTuning = {
      {"merge_attn_states.num_warps", 4},
      {"merge_attn_states.heads_per_program", 8},
      {"reshape_and_cache.num_warps", 4},
      {"reshape_and_cache.tokens_per_program", 2},
      {"paged_decode.q_rows", 16},
      {"paged_decode.block_n", 64},
      {"paged_decode.partition_size", 512},
      {"paged_decode.num_warps", 4},
      {"paged_decode_reduce.partitions_per_step", 16},
      {"paged_decode_reduce.num_warps", 2},
      {"paged_decode_reduce.partition_size", 512},
  };
  std::map<std::string, int64_t> hostTuning = {
      {"merge_attn_states.num_warps", 1},
      {"merge_attn_states.heads_per_program", 8},
      {"reshape_and_cache.num_warps", 1},
      {"reshape_and_cache.tokens_per_program", 4},
      {"paged_decode.q_rows", 16},
      {"paged_decode.block_n", 32},
      {"paged_decode.partition_size", 256},
      {"paged_decode.num_warps", 1},
      {"paged_decode_reduce.partitions_per_step", 8},
      {"paged_decode_reduce.num_warps", 1},
      {"paged_decode_reduce.partition_size", 256},
  };

  std::vector<TargetDescription> targets;
  targets.push_back({"sm_80", "A100", Vendor::kNvidia, "cuda", 32, 108, 1024, 163 * 1024,
                     65536, 255, {mmaF16, mmaBF16}, nvidiaTuning});
  // Per class of cells of bench/results/2026-12-01/final (partitions 64..4096 but 2048, block_n
  // 32/64, after shared rows became 32-byte aligned, which made 64-token tiles win most grids;
  // H200, bf16, head 128, GQA 1/4/8), the variant whose worst cell is fastest against the best peer
  // (the goal that binds); summed times pick the same rows but at 512 pairs past 4K
  // (1024/64: 1 % less in sum, its GQA cell 1.053x the peer instead of 1.033x). Small grids
  // want short partitions (more programs, fewer tiles in series); large grids at long
  // context want long ones (fewer partials to write and merge; at one partition the merge is
  // skipped). The first rows apply to heads up to 128 (at 192/256, 64-token K/V tiles no
  // longer fit beside each other; those heads have rows of their own, last). The last head-128
  // row keeps two tiles in flight (prefetch depth 2): 1.6 % faster at 32/8 and 64/8 x 256 x
  // 16K, a tie at 32/32 x 64 x 16K, 4 programs per SM instead of 5
  // (bench/results/2026-12-01/s7-depth2; depth 3 loses 10-13 %, and depth 2 loses at 512 pairs).
  // At 33-128 pairs past 2K up to 4K, 2048-token partitions (at 128 pairs x 4K one wave of
  // 256 programs) beat 1024 by 3-5 % at 32/8 and 64/8 x 16 x 4K in three calls
  // (bench/results/2026-12-01/s8-tiling; 2048 was not in the first sweep); up to 2K the row
  // keeps 1024, which gives that same wave there (not measured at 2K).
  // Since shared rows of whole 128-byte lines are XOR-swizzled instead of padded (3 programs
  // of 64-token tiles per SM instead of 2, 5 of 32-token tiles), the re-sweep of s9-swizzle
  // (c4, partitions 128..4096 x block_n 32/64) keeps every row but one: 33-128 pairs past 4K
  // take 32-token tiles (512 programs: one wave at 5 per SM; 64-token tiles left 1.3 waves
  // and 0.92x the peer at 32/8 x 16 x 16K, 32-token tiles 1.13x). The depth-2 row now ties
  // its depth-1 neighbour (4096/64: 1.019x against 1.018x at 64/8 x 256 x 16K).
  // Since a grid of one partition runs without the merge kernel (s10-merge: 1.3 us less at
  // 32/8 and 64/8 x 16 x 1K, 25.0 against 26.4 us), 65-128 pairs up to 1K take one 1024-token
  // partition (128 programs) instead of two of 512 (26.7 us with the merge); 33-64 pairs keep
  // 512 (not measured there: one partition would leave half the SMs idle at 64 pairs).
  // Rows ending in `true` merge the partitions through a thread-block cluster (no merge
  // kernel; where a sequence's partitions fit one: 2..8): at batch 1 x 1K the best variant
  // went from 10.7-11.1 to 9.2-9.3 us (32/8, 64/8: 1.47-1.57x the best peer) and with it
  // 512-token partitions (clusters of 8) won at 4K (14.4 against 15.1-16.0 us); 128 pairs keep
  // 2048-token partitions at 4K (69.1/69.9 against 70.8/72.9 us) and take two 512-token ones at
  // 1K (23.6/24.5 against 24.1/24.4). Clusters did not help where they made more than a wave
  // of programs (128 pairs x 4 or 8 partitions: 82-92 against 71-81 us) nor at 16K (8
  // partitions of 2048 tokens: too few programs) (bench/results/2026-12-01/s12-cluster-sweep).
  // The clusters of 4 were two waves then (the merge's staging in static shared memory left 4
  // programs per SM: 124 clusters resident of 128); staged over the placed tiles they are one
  // wave but still lose at 16 x 4K (p1024 n32: 71.9/72.0 against the row's 69.2/70.2 us,
  // bench/results/2026-12-01/s14-c3).
  // At 65-128 pairs up to 1K one 1024-token partition of 128-token tiles and 8 warps (one
  // program per SM, 8 tiles in series instead of 16) beat the cluster of two 512-token
  // partitions: 22.8/22.9 against 23.6/24.9 us at 32/8 and 64/8 x 16 x 1K (1.33-1.35x the
  // best peer; bench/results/2026-12-01/s13-batch16/b, which also swept depth 2 and 512-token
  // partitions). At 4K the same shape took 70.0-70.3 us against the cluster row's 67.9-69.0
  // (s13-batch16/a2, c0).
  const std::vector<DecodeTiling> h200DecodeTilings = {
      {8, 1024, 128, 128, 64, 1, true}, {8, 4096, 128, 512, 64, 1, true}, {8, 1 << 30, 128, 512, 64},
      {32, 1024, 128, 128, 32, 1, true}, {32, 4096, 128, 512, 64},    {32, 1 << 30, 128, 1024, 32},
      {64, 1024, 128, 512, 64},       {128, 1024, 128, 1024, 128, 1, false, 8},
      {128, 2048, 128, 1024, 64},     {128, 4096, 128, 2048, 64, 1, true},
      {128, 1 << 30, 128, 4096, 32},
      {512, 1024, 128, 1024, 32},     {512, 4096, 128, 4096, 32},     {512, 1 << 30, 128, 4096, 64},
      {1 << 30, 1024, 128, 1024, 64}, {1 << 30, 4096, 128, 4096, 64},
      {1 << 30, 1 << 30, 128, 4096, 32, 2},
      // Heads 192 and 256: 32-token tiles (64-token ones do not fit beside each other).
      // Re-swept after the unpadded rows (bench/results/2026-12-01/s10-heads: 32/8 heads,
      // batch 1/16/64/256, partitions 128..4096, the variant whose worst cell is fastest per
      // class): small grids want the short partitions head 128 takes; 128 pairs past 1K want
      // 2048 (one wave at 3 per SM; the old 512/1024 made 1.3 waves: 0.88x the peer at head
      // 256 x 16 x 4K, now 1.06x), 512 pairs at 1K 512 (1024 was 0.97x at head 256), and past
      // 1K the large grids 2048 at head 192 and 4096 at head 256 (2-4 % over 1024). Not
      // measured at these heads: 9-32 pairs (the head-128 table's partitions for the same
      // grid) and contexts between 1K, 4K and 16K.
      // Batch 1 re-measured with the cluster merge (s12-final/head192, head256): at 1K the
      // cluster of 8 128-token partitions (10.6-11.7 against 12.3-13.2 us without); at 4K
      // 256-token partitions (18.4-20.3 us; the 512 of the next row took 21.6-24.0).
      {8, 1024, 256, 128, 32, 1, true}, {8, 4096, 256, 256, 32},     {8, 1 << 30, 256, 512, 32},
      {32, 1024, 256, 128, 32},       {32, 4096, 256, 512, 32},       {32, 1 << 30, 256, 1024, 32},
      {128, 1024, 256, 512, 32},      {128, 1 << 30, 256, 2048, 32},
      {512, 1024, 256, 512, 32},      {512, 1 << 30, 192, 2048, 32},  {512, 1 << 30, 256, 4096, 32},
      {1 << 30, 1 << 30, 192, 2048, 32}, {1 << 30, 1 << 30, 256, 4096, 32},
  };
  targets.push_back({"sm_90", "H100/H200", Vendor::kNvidia, "cuda", 32, 132, 1024, 227 * 1024,
                     65536, 255, {mmaF16, mmaBF16}, nvidiaTuning, h200DecodeTilings});
  targets.back().maxClusterPrograms = 8;  // sm_90: 8 portable (16 with an opt-in)
  targets.push_back({"gfx90a", "MI210/MI250X", Vendor::kAmd, "hip", 64, 104, 1024, 64 * 1024,
                     131072, 512, {mfma16, mfma32}, amdTuning});
  targets.push_back({"gfx942", "MI300X/MI325X", Vendor::kAmd, "hip", 64, 304, 1024, 64 * 1024,
                     131072, 512, {mfma16, mfma32}, amdTuning});
  targets.push_back({"gfx950", "MI355X", Vendor::kAmd, "hip", 64, 256, 1024, 160 * 1024,
                     131072, 512, {mfma16k32, mfma16, mfma32}, amdTuning});
  targets.push_back({"gfx1100", "RX 7900 XTX (RDNA3)", Vendor::kAmd, "hip", 32, 96, 1024,
                     64 * 1024, 98304, 256, {wmma}, amdTuning});
  targets.push_back({"gfx1201", "RX 9070 XT (RDNA4)", Vendor::kAmd, "hip", 32, 64, 1024,
                     64 * 1024, 98304, 256, {wmmaGfx12}, amdTuning});
  targets.push_back({"host", "CPU (one host thread per program)", Vendor::kHost, "cpu", 1,
                     static_cast<int64_t>(std::thread::hardware_concurrency()), 1024,
                     1 << 30, 0, 0, {}, hostTuning});
  return targets;
}

}  // namespace

MatrixInstruction wgmmaInstruction(int64_t n, const std::string& operandType) {
  // PTX ISA, "Register Fragments and Shared Memory Matrix Layouts" for wgmma .m64nNk16: warp
  // w of the warpgroup holds rows 16w..16w+15 of A and D. D: row = 16 * w + groupID +
  // 8 * (i / 2 % 2), col = 8 * (i / 4) + 2 * (lane % 4) + i % 2; A in registers is mma.sync's
  // A per warp. B is read from shared memory only.
  const std::vector<std::array<int64_t, 2>> lanes = {{0, 2}, {0, 4}, {1, 0}, {2, 0},
                                                     {4, 0}, {16, 0}, {32, 0}};
  MatrixInstruction instruction{absl::StrCat("wgmma.m64n", n, "k16"), 64, n, 16, operandType, 128};
  instruction.a = {{{0, 1}, {8, 0}, {0, 8}}, lanes};
  instruction.acc = {{{0, 1}, {8, 0}}, lanes};
  for (int64_t cols = 8; cols < n; cols *= 2) instruction.acc.registerBases.push_back({0, cols});
  return instruction;
}

const std::vector<TargetDescription>& allTargets() {
  static const std::vector<TargetDescription> targets = buildTargets();
  return targets;
}

absl::StatusOr<const TargetDescription*> lookupTarget(std::string_view name) {
  std::vector<std::string> names;
  for (const TargetDescription& target : allTargets()) {
    if (target.name == name) return &target;
    names.push_back(target.name);
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown target '", std::string(name),
                                                 "'; known targets: ", absl::StrJoin(names, ", ")));
}

}  // namespace tilejit
