// Placed buffers follow the CUDA library's SharedTile rows (tj/shared.h): rows of an even
// number of 16-byte pieces whose count is a multiple of 4 are padded by two pieces (head 96:
// 12 pieces -> a 224-byte stride), others keep their width (head 80: 10 pieces, 160 bytes);
// each buffer starts on a 128-byte line. The offsets are what the library reads: a mismatch
// would overlap buffers on the GPU.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p head_size=80 -p block_n=32 --emit cpp --no-cache | FileCheck %s --check-prefix=H80
// H80: tj::load_shared<16, 80, 0, 1, 0, true>(async_copies, args.query
// H80: tj::paged_rows<tj::bf16, 32, 80, 16>(
// H80: tj::paged_load_shared_rows<tj::CacheLayout::Standard, 32, 80, 1, 2, 2560>(async_copies, args.key_cache
// H80: tj::paged_load_shared_rows<tj::CacheLayout::Standard, 32, 80, 2, 2, 12800>(async_copies, args.value_cache
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p head_size=80 -p block_n=32 --emit resources --no-cache | FileCheck %s --check-prefix=H80RES
// H80RES: 23040 dynamic
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p head_size=96 -p block_n=32 --emit cpp --no-cache | FileCheck %s --check-prefix=H96
// H96: tj::load_shared<16, 96, 0, 1, 0, true>(async_copies, args.query
// H96: tj::paged_rows<tj::bf16, 32, 96, 16>(
// H96: tj::paged_load_shared_rows<tj::CacheLayout::Standard, 32, 96, 1, 2, 3584>(async_copies, args.key_cache
// H96: tj::paged_load_shared_rows<tj::CacheLayout::Standard, 32, 96, 2, 2, 17920>(async_copies, args.value_cache
