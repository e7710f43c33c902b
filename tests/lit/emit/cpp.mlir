// The emitter writes one self-contained translation unit over the device library, with the
// template's names, deterministically (two runs give the same bytes).
// RUN: tilejit compile %templates/reshape_and_cache.mlir --target sm_90 -p kv_layout=shuffled --emit cpp --no-cache > %t.a
// RUN: tilejit compile %templates/reshape_and_cache.mlir --target sm_90 -p kv_layout=shuffled --emit cpp --no-cache > %t.b
// RUN: cmp %t.a %t.b
// RUN: FileCheck %s < %t.a
// RUN: tilejit compile %templates/paged_decode.mlir --target host -p gqa_ratio=4 --emit cpp --no-cache | FileCheck %s --check-prefix=DECODE
// grid_order=heads_first: program_id 0 is the kv head, 1 the sequence.
// RUN: tilejit compile %templates/paged_decode.mlir --target host -p gqa_ratio=4 -p grid_order=heads_first --emit cpp --no-cache | FileCheck %s --check-prefix=HEADS
// HEADS: tj::load_scalar(args.seq_lens, tj::Index<1>{program_y})
// HEADS: tj::paged_load<tj::CacheLayout::Standard, 32, 128>(args.key_cache, args.block_tables, program_y, t_next, end, program_x)
// RUN: tilejit compile %templates/paged_decode_reduce.mlir --target sm_90 -p partition_size=256 --emit cpp --no-cache | FileCheck %s --check-prefix=REDUCE
// The scratch holds the probabilities the PV dot stages from registers in one K chunk (16
// rows of 64 + 8 bf16: 2304 bytes, rounded up to 512); a smaller one would split the dot in
// chunks with barriers of their own in every tile.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=8 -p block_n=64 --emit cpp --no-cache | FileCheck %s --check-prefix=SCRATCH
// SCRATCH: #define TJ_SMEM_BYTES 2560
// SCRATCH-NOT: convert_layout

// CHECK: // parameters: block_size=16 dtype=bf16 head_size=128 heads_per_tile=8 kv_dtype=bf16 kv_layout=shuffled kv_scale=per_tensor min_blocks_per_sm=16 num_warps=1 tokens_per_program=2
// CHECK: #define TJ_THREADS 32
// CHECK: #define TJ_SMEM_BYTES 4096
// CHECK: #define TJ_MIN_BLOCKS 16
// CHECK: #include "tj/device.h"
// CHECK: struct tj_args_reshape_and_cache {
// CHECK-NEXT:   tj::View<tj::bf16, 3> key;
// CHECK-NEXT:   tj::View<tj::bf16, 3> value;
// CHECK-NEXT:   tj::View<tj::bf16, 5> key_cache;
// CHECK-NEXT:   tj::View<tj::bf16, 5> value_cache;
// CHECK-NEXT:   tj::View<int64_t, 1> slot_mapping;
// CHECK: TJ_KERNEL_ENTRY(tj_reshape_and_cache, tj_args_reshape_and_cache) {
// CHECK: const int64_t slot = tj::load_scalar(args.slot_mapping, tj::Index<1>{
// CHECK: if (keep) {
// CHECK: const tj::Tile<tj::bf16, 8, 128> k = tj::load<8, 128>(args.key,
// CHECK: tj::paged_store<tj::CacheLayout::ShuffledK>(args.key_cache, k, block, offset,
// CHECK: tj::paged_store<tj::CacheLayout::ShuffledV>(args.value_cache, v, block, offset,

// DECODE: TJ_KERNEL_ENTRY(tj_paged_decode, tj_args_paged_decode) {
// DECODE: tj::start_next_kernel();
// The partition's table entries are asked for before the length is read.
// DECODE: tj::prefetch(args.block_tables, tj::Index<2>{program_x, first_block}, table_entries);
// DECODE-NEXT: const int32_t len_i32 = tj::load_scalar(args.seq_lens
// DECODE: for (int64_t t0 = start; t0 < end; t0 += block_n) {
// DECODE: tj::paged_load<tj::CacheLayout::Standard, 32, 128>(args.key_cache, args.block_tables, program_x, t_next, end, program_y)
// DECODE: tj::dot<true>(q, k, zero_s)
// DECODE: tj::reduce_max<1>(logits)
// DECODE: tj::dot<false>(p_low, v, acc_scaled)

// The merge reads the sequence's length (not written by the split-K kernel) before it waits
// for the split-K kernel's partials, and loads a step of partitions at once.
// REDUCE: TJ_KERNEL_ENTRY(tj_paged_decode_reduce, tj_args_paged_decode_reduce) {
// REDUCE: tj::load_scalar(args.seq_lens
// REDUCE-NEXT: tj::wait_previous_kernel();
// REDUCE: tj::load<16, 1, 128>(args.partial_out
