// tj-place-dot-operands-in-shared-memory (GPU targets): loads that only feed tensor-core dots
// are placed in shared memory, one buffer per chain of loads linked by scf.for iter_args, two
// slots when loop-carried; the host target never; shuffled caches stay in registers. The
// placed buffers live in dynamic shared memory (up to the target's per-program maximum).
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 --emit specialized --no-cache | FileCheck %s --check-prefix=SM90
// SM90: tj.load %query{{.*}} [16, 128] {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// SM90: tj.paged_load %key_cache{{.*}} [32, 128] {shared_buffer = 1 : i64, shared_slots = 2 : i64}
// SM90: tj.paged_load %value_cache{{.*}} [32, 128] {shared_buffer = 2 : i64, shared_slots = 2 : i64}
// SM90: scf.for
// SM90: tj.paged_load %key_cache{{.*}} [32, 128] {shared_buffer = 1 : i64, shared_slots = 2 : i64}
// SM90: tj.paged_load %value_cache{{.*}} [32, 128] {shared_buffer = 2 : i64, shared_slots = 2 : i64}
// Two tiles ahead (tj-deepen-loop-prefetch): three slots per K/V buffer, used in turn.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p prefetch_depth=2 --emit specialized --no-cache | FileCheck %s --check-prefix=DEEP
// DEEP: tj.paged_load %key_cache{{.*}} [32, 128] {shared_buffer = 1 : i64, shared_slots = 3 : i64}
// DEEP: tj.paged_load %value_cache{{.*}} [32, 128] {shared_buffer = 2 : i64, shared_slots = 3 : i64}
// DEEP: tj.paged_load %key_cache{{.*}} [32, 128] {shared_buffer = 1 : i64, shared_slots = 3 : i64}
// DEEP: tj.paged_load %value_cache{{.*}} [32, 128] {shared_buffer = 2 : i64, shared_slots = 3 : i64}
// DEEP: scf.for {{.*}} iter_args({{.*}}, {{.*}}, {{.*}}, {{.*}}, {{.*}}, {{.*}}, {{.*}})
// Each dot's wait is a constant: the tile it reads has four copy groups after its own.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p prefetch_depth=2 --emit cpp --no-cache | FileCheck %s --check-prefix=DEEPCPP
// DEEPCPP: tj::dot<true>(q, {{.*}}, zero_s, async_copies.newerAtLeast(4))
// DEEPCPP: tj::dot<false>(p_low, {{.*}}, acc_scaled, async_copies.newerAtLeast(4))
// RUN: tilejit compile %templates/paged_decode.mlir --target host -p gqa_ratio=4 --emit specialized --no-cache | FileCheck %s --check-prefix=HOST
// HOST-NOT: shared_buffer
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p kv_layout=shuffled --emit specialized --no-cache | FileCheck %s --check-prefix=SHUFFLED
// Shuffled K's 16-byte pieces run along the head dim (as the standard layout's): placed as is.
// Shuffled V's run along tokens: placed transposed ([head_size, tokens]), and the PV dot reads
// it as b the other way (dot<true>).
// SHUFFLED: tj.load %query{{.*}} {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// SHUFFLED: tj.paged_load %key_cache{{.*}} {shared_buffer = 1 : i64, shared_slots = 2 : i64} : <k, {{.*}} layout = shuffled>
// SHUFFLED: tj.paged_load %value_cache{{.*}} {shared_buffer = 2 : i64, shared_slots = 2 : i64, shared_transposed} : <v, {{.*}} layout = shuffled>
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p block_n=64 -p kv_layout=shuffled --emit cpp --no-cache | FileCheck %s --check-prefix=SHUFFLEDCPP
// SHUFFLEDCPP: tj::SharedTile<tj::bf16, 128, 64> v_first = tj::paged_load_shared_transposed<64, 128, 2, 2, {{[0-9]+}}, 16>(
// SHUFFLEDCPP: tj::dot<true>(p_low, v, acc_scaled, async_copies.newerAtLeast(2))
// Registers hold the shuffled layout's K/V: sm_90's occupancy hint for the placed layout
// (min_blocks_per_sm 5) does not apply to it (target tuning keyed [kv_layout=shuffled]), unless given.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p kv_layout=shuffled --emit cpp --no-cache | FileCheck %s --check-prefix=SHUFFLEDHINT
// SHUFFLEDHINT: kv_layout=shuffled kv_scale=per_tensor merge_in_kernel=0 min_blocks_per_sm=0
// SHUFFLEDHINT-NOT: TJ_MIN_BLOCKS
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p kv_layout=shuffled -p min_blocks_per_sm=3 --emit cpp --no-cache | FileCheck %s --check-prefix=SHUFFLEDGIVEN
// SHUFFLEDGIVEN: #define TJ_MIN_BLOCKS 3
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p head_size=256 --emit specialized --no-cache | FileCheck %s --check-prefix=LARGE
// LARGE: tj.load %query{{.*}} [16, 256] {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// LARGE: tj.paged_load %key_cache{{.*}} [32, 256] {shared_buffer = 1 : i64, shared_slots = 2 : i64}
// LARGE: tj.paged_load %value_cache{{.*}} [32, 256] {shared_buffer = 2 : i64, shared_slots = 2 : i64}
// A tj-opt budget of 48 KB (the pass's default) leaves the 256-wide K/V tiles in registers.
// RUN: tilejit compile %templates/paged_decode.mlir --target host -p gqa_ratio=4 -p head_size=256 -p q_rows=16 -p block_n=32 -p partition_size=256 -p num_warps=4 --emit specialized --no-cache > %t.host
// RUN: tj-opt %t.host --tj-place-dot-operands-in-shared-memory | FileCheck %s --check-prefix=BUDGET
// BUDGET: tj.load %query{{.*}} [16, 256] {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// BUDGET-NOT: shared_buffer
// The emitted CUDA names the shared tiles, the async record, buffer offsets and the block size;
// the K and V tiles of one step share their block-table lookups (one tj::paged_rows); the
// occupancy hint is clamped to what shared memory allows (3 programs at head 256).
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 --emit cpp --no-cache | FileCheck %s --check-prefix=CPP
// CPP: #define TJ_MIN_BLOCKS 5
// CPP: tj::AsyncCopies async_copies;
// CPP: const tj::SharedTile<tj::bf16, 16, 128> q = tj::load_shared<16, 128, 0, 1, 0, true>(async_copies, args.query
// CPP: tj::SharedTile<tj::bf16, 32, 128> k = k_first;
// CPP: const tj::PagedRows<tj::bf16, 32, 128> k_next_rows = tj::paged_rows<tj::bf16, 32, 128, 16>(args.block_tables, program_x, t_next, end, args.key_cache.shape[1]);
// CPP: tj::paged_load_shared_rows<tj::CacheLayout::Standard, 32, 128, 1, 2, 4096>(async_copies, args.key_cache, k_next_rows, program_y)
// CPP: tj::dot<true>(q, k, zero_s, async_copies.newerAtLeast(2))
// CPP-NOT: tj::paged_rows<
// CPP: tj::paged_load_shared_rows<tj::CacheLayout::Standard, 32, 128, 2, 2, {{[0-9]+}}>(async_copies, args.value_cache, k_next_rows, program_y)
// CPP: tj::dot<false>(p_low, v, acc_scaled, async_copies.newerAtLeast(2))
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p head_size=256 --emit cpp --no-cache | FileCheck %s --check-prefix=CLAMP
// CLAMP: #define TJ_MIN_BLOCKS 3
