// tj-place-dot-operands-in-shared-memory (GPU targets): loads that only feed tensor-core dots
// are placed in shared memory, one buffer per chain of loads linked by scf.for iter_args, two
// slots when loop-carried; the host target never; shuffled caches and tiles that do not fit
// the 48 KB static budget stay in registers.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 --emit specialized --no-cache | FileCheck %s --check-prefix=SM90
// SM90: tj.load %query{{.*}} [16, 128] {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// SM90: tj.paged_load %key_cache{{.*}} [32, 128] {shared_buffer = 1 : i64, shared_slots = 2 : i64}
// SM90: tj.paged_load %value_cache{{.*}} [32, 128] {shared_buffer = 2 : i64, shared_slots = 2 : i64}
// SM90: scf.for
// SM90: tj.paged_load %key_cache{{.*}} [32, 128] {shared_buffer = 1 : i64, shared_slots = 2 : i64}
// SM90: tj.paged_load %value_cache{{.*}} [32, 128] {shared_buffer = 2 : i64, shared_slots = 2 : i64}
// RUN: tilejit compile %templates/paged_decode.mlir --target host -p gqa_ratio=4 --emit specialized --no-cache | FileCheck %s --check-prefix=HOST
// HOST-NOT: shared_buffer
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p kv_layout=shuffled --emit specialized --no-cache | FileCheck %s --check-prefix=SHUFFLED
// SHUFFLED: tj.load %query{{.*}} {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// SHUFFLED-NOT: shared_buffer
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p head_size=256 --emit specialized --no-cache | FileCheck %s --check-prefix=BUDGET
// BUDGET: tj.load %query{{.*}} [16, 256] {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// BUDGET-NOT: shared_buffer
// The emitted CUDA names the shared tiles, the async record and the block size.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 --emit cpp --no-cache | FileCheck %s --check-prefix=CPP
// CPP: tj::AsyncCopies async_copies;
// CPP: const tj::SharedTile<tj::bf16, 16, 128> q = tj::load_shared<16, 128, 0, 1>(async_copies, args.query
// CPP: tj::SharedTile<tj::bf16, 32, 128> k = k_first;
// CPP: tj::paged_load_shared<tj::CacheLayout::Standard, 32, 128, 1, 2, 16>(async_copies, args.key_cache, args.block_tables, seq, t_next, end, kv_head)
// CPP: tj::dot<true>(q, k, zero_s, async_copies)
// CPP: tj::dot<false>(p_low, v, acc_scaled, async_copies)
