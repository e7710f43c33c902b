// Paged-decode specializations and problems shared by the CPU and CUDA suites. Covers every
// GQA ratio up to 16 and groups of 20..128 split into row blocks, every head size and block
// size of the domain (each sweep around a base point), both cache layouts, both dtypes and
// every option; context lengths include 1, block_size - 1,
// block_size, block_size + 1 and partition boundaries.
#pragma once

#include <string>
#include <vector>

#include "compiler/ops/paged_decode.h"
#include "tools/harness/paged_decode_harness.h"

namespace tilejit::testing {

struct DecodeCase {
  std::string name;
  PagedDecodeConfig config;
  int64_t numKvHeads = 2;
  float softCapValue = 0;
  int32_t slidingWindow = 0;
  // > 0: a workspace of exactly this many partitions (max_model_len = that many times
  // partition_size), lengths capped there and the longest ones added. 1: a grid of one
  // partition, which PagedDecode runs without the merge kernel (the split-K kernel writes
  // every output, empty sequences' too); cluster_size > 1 needs it equal to the cluster.
  int64_t partitions = 0;
};

// `clusters`: add the cases that merge through thread-block clusters (targets that have them).
inline std::vector<DecodeCase> decodeCases(bool full, bool clusters) {
  std::vector<DecodeCase> cases;
  auto add = [&](std::string name, PagedDecodeConfig config, int64_t kvHeads = 2) {
    cases.push_back({std::move(name), std::move(config), kvHeads});
    return &cases.back();
  };
  PagedDecodeConfig base;
  base.headSize = 128;
  base.blockSize = 16;
  base.gqaRatio = 4;
  std::vector<int64_t> ratios = full ? std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
                                     : std::vector<int64_t>{1, 3, 8, 16};
  for (int64_t ratio : ratios) {
    PagedDecodeConfig c = base;
    c.gqaRatio = ratio;
    add("ratio" + std::to_string(ratio), c, ratio == 1 ? 3 : 2);
  }
  // Groups larger than one program's 16 rows, split into row blocks over the same K/V: MQA
  // (StarCoder 48, Falcon-7B 71 of which the last block holds 7 rows, 128) on one kv head, 20
  // on two (a block of 4 rows past the first kv head's 16), 71 laid out heads first, with a
  // window over several partitions, and with sinks (each block's rows take their own heads').
  struct Group {
    const char* name;
    int64_t ratio, kvHeads;
    const char* order;
    int32_t window;
    bool sinks;
  };
  for (Group g : {Group{"mqa48", 48, 1, "seqs_first", 0, false}, Group{"mqa71", 71, 1, "seqs_first", 0, false},
                  Group{"mqa128", 128, 1, "seqs_first", 0, false},
                  Group{"group20", 20, 2, "seqs_first", 0, false},
                  Group{"mqa71_heads_first_window", 71, 1, "heads_first", 50, false},
                  Group{"mqa71_sinks", 71, 1, "seqs_first", 0, true},
                  Group{"group20_sinks_window", 20, 2, "heads_first", 50, true}}) {
    PagedDecodeConfig c = base;
    c.gqaRatio = g.ratio;
    c.sinks = g.sinks;
    c.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"q_rows", "16"}, {"grid_order", g.order}};
    add(g.name, c, g.kvHeads)->slidingWindow = g.window;
  }
  // fp8 caches, both formats with both scale kinds (per kv head: three heads of their own
  // scales), then across the options: f16 queries, heads 64 and 256, blocks of 1 and 256,
  // sinks with a window, the in-kernel merge, one partition, a split MQA group, and head 80
  // in blocks of 8 with soft cap and ALiBi.
  struct Fp8 {
    const char* name;
    const char* format;
    const char* scale;
    const char* dtype;
    int64_t head, block, ratio, kvHeads, partitions;
    int32_t window;
    bool sinks;
    const char* merge;
  };
  for (Fp8 f : {Fp8{"fp8_e4m3_tensor", "fp8_e4m3", "per_tensor", "bf16", 128, 16, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_e4m3_head", "fp8_e4m3", "per_head", "bf16", 128, 16, 4, 3, 0, 0, false, "0"},
                Fp8{"fp8_e5m2_tensor", "fp8_e5m2", "per_tensor", "bf16", 128, 16, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_e5m2_head", "fp8_e5m2", "per_head", "bf16", 128, 16, 4, 3, 0, 0, false, "0"},
                Fp8{"fp8_e4m3_f16", "fp8_e4m3", "per_head", "f16", 128, 16, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_e5m2_f16", "fp8_e5m2", "per_tensor", "f16", 128, 16, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_head64", "fp8_e4m3", "per_head", "bf16", 64, 16, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_head256", "fp8_e4m3", "per_head", "bf16", 256, 16, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_block1", "fp8_e4m3", "per_head", "bf16", 128, 1, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_block256", "fp8_e5m2", "per_head", "bf16", 128, 256, 4, 2, 0, 0, false, "0"},
                Fp8{"fp8_sinks_window", "fp8_e4m3", "per_head", "bf16", 128, 16, 3, 2, 0, 50, true, "0"},
                Fp8{"fp8_merge_in_kernel", "fp8_e5m2", "per_head", "bf16", 128, 16, 3, 2, 0, 0, false, "1"},
                Fp8{"fp8_one_partition", "fp8_e4m3", "per_tensor", "bf16", 128, 16, 3, 2, 1, 20, false, "0"},
                Fp8{"fp8_mqa71", "fp8_e4m3", "per_head", "bf16", 128, 16, 71, 1, 0, 0, true, "0"},
                Fp8{"fp8_head80_soft_cap_alibi", "fp8_e5m2", "per_head", "bf16", 80, 8, 4, 2, 0, 0, false, "0"}}) {
    PagedDecodeConfig c = base;
    c.dtype = f.dtype;
    c.kvCacheDtype = f.format;
    c.kvScale = f.scale;
    c.headSize = f.head;
    c.blockSize = f.block;
    c.gqaRatio = f.ratio;
    c.sinks = f.sinks;
    c.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"merge_in_kernel", f.merge}};
    const bool capped = f.head == 80;  // (K's scale joins the logits before the cap and the bias)
    c.softCap = c.alibi = capped;
    DecodeCase* added = add(f.name, c, f.kvHeads);
    added->partitions = f.partitions;
    added->slidingWindow = f.window;
    if (capped) added->softCapValue = 5.0f;
  }
  std::vector<int64_t> heads = full ? std::vector<int64_t>{64, 80, 96, 112, 128, 192, 256}
                                    : std::vector<int64_t>{64, 80, 112, 256};
  for (int64_t head : heads) {
    PagedDecodeConfig c = base;
    c.headSize = head;
    add("head" + std::to_string(head), c);
  }
  std::vector<int64_t> blocks = full ? std::vector<int64_t>{1, 8, 16, 32, 64, 128, 256}
                                     : std::vector<int64_t>{1, 8, 32, 256};
  for (int64_t block : blocks)
    for (const char* layout : {"standard", "shuffled"}) {
      if (std::string(layout) == "shuffled" && block % 8 != 0) continue;
      PagedDecodeConfig c = base;
      c.blockSize = block;
      c.gqaRatio = 2;
      c.kvLayout = layout;
      add("block" + std::to_string(block) + "_" + layout, c);
    }
  {
    PagedDecodeConfig c = base;
    c.dtype = "f16";
    add("f16", c);
  }
  {
    PagedDecodeConfig c = base;
    c.softCap = true;
    add("soft_cap", c)->softCapValue = 5.0f;
  }
  {
    PagedDecodeConfig c = base;
    c.alibi = true;
    add("alibi", c);
  }
  {
    PagedDecodeConfig c = base;
    add("sliding_window", c)->slidingWindow = 37;
  }
  {
    // The merge takes one partition per step (every step after the first rescales), four of
    // the six q heads per program (the second program's last two are past the end).
    PagedDecodeConfig c = base;
    c.gqaRatio = 3;
    c.tuning = {{"partition_size", "64"},
                {"block_n", "32"},
                {"reduce_partitions_per_step", "1"},
                {"reduce_heads_per_program", "4"}};
    add("merge_steps", c);
  }
  {
    // A partition size that is no power of two (3 tiles of 32): boundaries at 96, 192, ...
    PagedDecodeConfig c = base;
    c.tuning = {{"partition_size", "96"}, {"block_n", "32"}};
    add("partition96", c);
  }
  {
    // Programs laid out kv heads first (program_id 0 = kv head).
    PagedDecodeConfig c = base;
    c.tuning = {{"grid_order", "heads_first"}, {"partition_size", "64"}};
    add("heads_first", c, 3);
  }
  for (int64_t ratio : {4, 3}) {
    // The split-K kernel merges itself (merge_in_kernel): several partitions per sequence,
    // rows past the group (ratio 3 in 16 rows), and with a window of 50 tokens partitions of
    // no valid token (LSE -inf) before the ones that count (length 127: tokens 77..126).
    PagedDecodeConfig c = base;
    c.gqaRatio = ratio;
    c.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"merge_in_kernel", "1"}};
    DecodeCase* added = add("merge_in_kernel" + std::to_string(ratio), c);
    if (ratio == 3) added->slidingWindow = 50;
  }
  for (int64_t ratio : {4, 3}) {
    // One partition holds every context (max_partitions 1): no merge kernel is launched, so
    // the empty sequence's zeros and every output come from the split-K kernel.
    PagedDecodeConfig c = base;
    c.gqaRatio = ratio;
    c.tuning = {{"partition_size", "64"}, {"block_n", "32"}};
    DecodeCase* added = add("one_partition" + std::to_string(ratio), c);
    added->partitions = 1;
    if (ratio == 3) added->slidingWindow = 20;
  }
  for (int64_t depth : {2, 3}) {
    // K/V tiles two and three steps ahead (tj-deepen-loop-prefetch): partitions of several
    // tiles, lengths that end inside the prologue's tiles, a window that starts mid-partition.
    PagedDecodeConfig c = base;
    c.blockSize = depth == 2 ? 16 : 8;
    c.tuning = {{"partition_size", "128"}, {"block_n", "16"}, {"prefetch_depth", std::to_string(depth)}};
    DecodeCase* added = add("prefetch" + std::to_string(depth), c);
    if (depth == 3) added->slidingWindow = 45;
  }
  for (int64_t ratio : {8, 5}) {
    // 128-token tiles over 8 warps (sm_90's table row at 65-128 pairs up to 1K): with the
    // merge kernel over 256-token partitions, and as one partition with a window.
    PagedDecodeConfig c = base;
    c.gqaRatio = ratio;
    c.tuning = {{"partition_size", "256"}, {"block_n", "128"}, {"num_warps", "8"}};
    DecodeCase* added = add("warps8_tile128_" + std::to_string(ratio), c);
    if (ratio == 5) {
      added->partitions = 1;
      added->slidingWindow = 150;
    }
  }
  // Attention sinks, counted once per head whichever way the partitions merge: alone (the
  // merge kernel over 64-token partitions), with a window that leaves partition 0 without a
  // valid token (its partial is the sink alone), with soft cap and ALiBi, merged in the
  // split-K kernel, and in a grid of one partition.
  struct Sink {
    const char* name;
    bool softCap, alibi;
    int32_t window;
    const char* merge;
    int64_t partitions;
  };
  for (Sink k : {Sink{"sinks", false, false, 0, "0", 0}, Sink{"sinks_window", false, false, 50, "0", 0},
                 Sink{"sinks_soft_cap_alibi", true, true, 0, "0", 0},
                 Sink{"sinks_merge_in_kernel", false, false, 50, "1", 0},
                 Sink{"sinks_one_partition", false, false, 20, "0", 1}}) {
    PagedDecodeConfig c = base;
    c.gqaRatio = 3;
    c.sinks = true;
    c.softCap = k.softCap;
    c.alibi = k.alibi;
    c.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"merge_in_kernel", k.merge}};
    DecodeCase* added = add(k.name, c);
    added->slidingWindow = k.window;
    added->partitions = k.partitions;
    if (k.softCap) added->softCapValue = 5.0f;
  }
  // The partitions merge through a thread-block cluster (cluster_size, sm_90 only; the CPU
  // suite checks that its target refuses it): 8 ranks over head 128 (16 columns each), 2 with
  // a window leaving partitions of no valid token, 4 over head 80 (20 columns each) with 7 of
  // 16 rows in the group, 3 (no power of two) over head 64 (22, 22 and 20 columns). Clusters
  // of 2 merge by push (the last program merges all columns): also over head 256, 16 rows.
  struct Cluster {
    int64_t size, ratio, head, window;
  };
  for (Cluster k : {Cluster{8, 4, 128, 0}, Cluster{2, 3, 128, 50}, Cluster{4, 7, 80, 0},
                    Cluster{3, 1, 64, 0}, Cluster{2, 16, 256, 0}}) {
    if (!clusters) break;
    PagedDecodeConfig c = base;
    c.gqaRatio = k.ratio;
    c.headSize = k.head;
    c.maxModelLen = 64 * k.size;
    c.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"cluster_size", std::to_string(k.size)}};
    DecodeCase* added = add("cluster" + std::to_string(k.size) + (k.head == 256 ? "_head256" : ""), c);
    added->partitions = k.size;
    added->slidingWindow = int32_t(k.window);
    if (k.size == 2 && k.window > 0) {  // the same with sinks: the cluster counts rank 0's once
      c.sinks = true;
      DecodeCase* sunk = add("cluster2_sinks", c);
      sunk->partitions = k.size;
      sunk->slidingWindow = int32_t(k.window);
    }
  }
  if (clusters) {  // a split group's row blocks, each its own cluster of the partitions
    PagedDecodeConfig c = base;
    c.gqaRatio = 48;
    c.maxModelLen = 128;
    c.tuning = {{"partition_size", "64"}, {"block_n", "32"}, {"q_rows", "16"}, {"cluster_size", "2"}};
    add("cluster2_mqa48", c, 1)->partitions = 2;
    c.kvCacheDtype = "fp8_e5m2";  // and over an fp8 cache, scales per kv head
    c.kvScale = "per_head";
    c.gqaRatio = 8;
    add("cluster2_fp8", c, 2)->partitions = 2;
  }
  return cases;
}

// Lengths around the block and partition edges of a config, plus 1 and an empty sequence.
inline std::vector<int64_t> decodeLengths(int64_t blockSize, int64_t partitionSize, bool longContext) {
  std::vector<int64_t> lengths = {1, 0, blockSize + 1, partitionSize + 1, 2 * partitionSize - 1};
  if (blockSize > 1) lengths.push_back(blockSize - 1);
  lengths.push_back(blockSize);
  lengths.push_back(partitionSize);
  if (longContext) lengths.push_back(32768);
  return lengths;
}

}  // namespace tilejit::testing
