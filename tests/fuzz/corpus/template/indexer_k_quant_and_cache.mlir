// Quantizes the DSA indexer's new K rows [num_tokens, 128] to fp8 e4m3 with one scale per
// 128-wide group and writes them through slot_mapping into the indexer cache (CONTEXT.md
// section 3). slot = block * block_size + offset; a negative slot is padding: skipped.
//
// vLLM's layout (csrc/cache_kernels.cu indexer_k_quant_and_cache @ 693083ae and the Triton
// indexer_k_quant_and_cache_triton in vllm/v1/attention/ops/rocm_aiter_mla_sparse.py @ 2d74e0fc,
// "NHD"): the cache is uint8 [num_blocks, block_size, 132];
// each block holds block_size * 128 fp8 values (token-major) and then block_size float32
// scales. The kernel sees the cache twice, flattened per block: as fp8 bytes
// [num_blocks, block_size * 132] (value d of slot o at o * 128 + d) and as 32-bit words
// [num_blocks, block_size * 33] (the scale of slot o at block_size * 32 + o), e.g.
// cache.view(num_blocks, -1).view(torch.float8_e4m3fn) and .view(torch.float32).
//
// scale = max(amax, 1e-4) / 448 in fp32 (IEEE division); "ue8m0" rounds it up to the
// smallest power of two at or above it, exactly (vLLM: exp2(ceil(log2(scale))), the same
// whenever log2 is correctly rounded near the integer). fp8 = satfinite_rne(x / scale).
// Every block size in the domain is correct, 1 and non-multiples of 16 included: the cache's
// 132-byte rows are written byte by byte and word by word, never assumed 16-byte aligned.
tj.template @indexer_k_quant_and_cache {
  tj.param @dtype : type values [bf16, f16] default bf16
  tj.param @block_size : int range [1, 256] default 64
  tj.param @scale_format : string values ["float32", "ue8m0"] default "float32"
  tj.param @tokens_per_program : int range [1, 64]
  tj.param @num_warps : int values [1, 2, 4, 8]

  tj.launch grid {
    %tokens = tj.shape_symbol "num_tokens" : index
    %per_program = tj.param_value @tokens_per_program : index
    %programs = arith.ceildivsi %tokens, %per_program : index
    %one = arith.constant 1 : index
    tj.yield %programs, %one, %one : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @indexer_k_quant_and_cache(
      %k: !tj.view<[num_tokens, 128], !tj.dtype<"dtype">>,
      %cache_values: !tj.view<[num_blocks, block_bytes], f8E4M3FN>,
      %cache_scales: !tj.view<[num_blocks, block_words], f32>,
      %slot_mapping: !tj.view<[num_tokens], i64>) {
    %program = tj.program_id 0 : index
    %per_program = tj.param_value @tokens_per_program : index
    %tokens = tj.shape_symbol "num_tokens" : index
    %block_size = tj.param_value @block_size : index
    %ue8m0 = tj.param_equals @scale_format, "ue8m0"
    %first = arith.muli %program, %per_program : index
    %past_last = arith.addi %first, %per_program : index
    %end = arith.minsi %past_last, %tokens : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %c0_i64 = arith.constant 0 : i64
    %scales_at = arith.muli %block_size, %c32 : index
    %floor = arith.constant 1.0e-4 : f32
    %fp8_max = arith.constant 448.0 : f32
    %tiny = arith.constant 0x33800000 : f32
    %two_64 = arith.constant 0x5F800000 : f32
    %two_32 = arith.constant 0x4F800000 : f32
    %two_16 = arith.constant 0x47800000 : f32
    %two_8 = arith.constant 0x43800000 : f32
    %two_4 = arith.constant 0x41800000 : f32
    %two_2 = arith.constant 0x40800000 : f32
    %two_1 = arith.constant 0x40000000 : f32
    %floor_t = tj.full %floor [1] : f32 -> tensor<1xf32>
    %fp8_max_t = tj.full %fp8_max [1] : f32 -> tensor<1xf32>
    scf.for %token = %first to %end step %c1 {
      // The row is read before the slot is known, so the two reads overlap.
      %x = tj.load %k[%token, %c0] [1, 128]
          : !tj.view<[num_tokens, 128], !tj.dtype<"dtype">> -> tensor<1x128x!tj.dtype<"dtype">>
      %slot = tj.load_scalar %slot_mapping[%token] : !tj.view<[num_tokens], i64> -> i64
      %keep = arith.cmpi sge, %slot, %c0_i64 : i64
      scf.if %keep {
        %slot_index = arith.index_cast %slot : i64 to index
        %block = arith.divsi %slot_index, %block_size : index
        %offset = arith.remsi %slot_index, %block_size : index
        %xf = arith.extf %x : tensor<1x128x!tj.dtype<"dtype">> to tensor<1x128xf32>
        %magnitude = math.absf %xf : tensor<1x128xf32>
        %amax = tj.reduce max %magnitude axis 1 : tensor<1x128xf32> -> tensor<1xf32>
        %clamped = arith.maximumf %amax, %floor_t : tensor<1xf32>
        %linear = arith.divf %clamped, %fp8_max_t : tensor<1xf32>
        %scale = scf.if %ue8m0 -> (tensor<1xf32>) {
          // The largest power of two below the scale, found greedily from 2^-24 (below any
          // scale: 1e-4 / 448 > 2^-23) by steps of 2^64, 2^64, 2^32, ..., 2^1, then doubled:
          // every product is an exact power of two, so no log2/exp2 rounding can pick the
          // power below (which would let x / scale pass 448).
          %p0 = tj.full %tiny [1] : f32 -> tensor<1xf32>
          %f0 = tj.full %two_64 [1] : f32 -> tensor<1xf32>
          %q0 = arith.mulf %p0, %f0 : tensor<1xf32>
          %below0 = arith.cmpf olt, %q0, %linear : tensor<1xf32>
          %p1 = arith.select %below0, %q0, %p0 : tensor<1xi1>, tensor<1xf32>
          %f1 = tj.full %two_64 [1] : f32 -> tensor<1xf32>
          %q1 = arith.mulf %p1, %f1 : tensor<1xf32>
          %below1 = arith.cmpf olt, %q1, %linear : tensor<1xf32>
          %p2 = arith.select %below1, %q1, %p1 : tensor<1xi1>, tensor<1xf32>
          %f2 = tj.full %two_32 [1] : f32 -> tensor<1xf32>
          %q2 = arith.mulf %p2, %f2 : tensor<1xf32>
          %below2 = arith.cmpf olt, %q2, %linear : tensor<1xf32>
          %p3 = arith.select %below2, %q2, %p2 : tensor<1xi1>, tensor<1xf32>
          %f3 = tj.full %two_16 [1] : f32 -> tensor<1xf32>
          %q3 = arith.mulf %p3, %f3 : tensor<1xf32>
          %below3 = arith.cmpf olt, %q3, %linear : tensor<1xf32>
          %p4 = arith.select %below3, %q3, %p3 : tensor<1xi1>, tensor<1xf32>
          %f4 = tj.full %two_8 [1] : f32 -> tensor<1xf32>
          %q4 = arith.mulf %p4, %f4 : tensor<1xf32>
          %below4 = arith.cmpf olt, %q4, %linear : tensor<1xf32>
          %p5 = arith.select %below4, %q4, %p4 : tensor<1xi1>, tensor<1xf32>
          %f5 = tj.full %two_4 [1] : f32 -> tensor<1xf32>
          %q5 = arith.mulf %p5, %f5 : tensor<1xf32>
          %below5 = arith.cmpf olt, %q5, %linear : tensor<1xf32>
          %p6 = arith.select %below5, %q5, %p5 : tensor<1xi1>, tensor<1xf32>
          %f6 = tj.full %two_2 [1] : f32 -> tensor<1xf32>
          %q6 = arith.mulf %p6, %f6 : tensor<1xf32>
          %below6 = arith.cmpf olt, %q6, %linear : tensor<1xf32>
          %p7 = arith.select %below6, %q6, %p6 : tensor<1xi1>, tensor<1xf32>
          %f7 = tj.full %two_1 [1] : f32 -> tensor<1xf32>
          %q7 = arith.mulf %p7, %f7 : tensor<1xf32>
          %below7 = arith.cmpf olt, %q7, %linear : tensor<1xf32>
          %p8 = arith.select %below7, %q7, %p7 : tensor<1xi1>, tensor<1xf32>
          %up = arith.addf %p8, %p8 : tensor<1xf32>
          scf.yield %up : tensor<1xf32>
        } else {
          scf.yield %linear : tensor<1xf32>
        }
        %scale_col = tj.expand_dims %scale axis 1 : tensor<1xf32> -> tensor<1x1xf32>
        %scale_row = tj.broadcast %scale_col [1, 128] : tensor<1x1xf32> -> tensor<1x128xf32>
        %scaled = arith.divf %xf, %scale_row : tensor<1x128xf32>
        %q = arith.truncf %scaled : tensor<1x128xf32> to tensor<1x128xf8E4M3FN>
        %value_at = arith.muli %offset, %c128 : index
        tj.store %q, %cache_values[%block, %value_at]
            : tensor<1x128xf8E4M3FN>, !tj.view<[num_blocks, block_bytes], f8E4M3FN>
        %scale_index = arith.addi %scales_at, %offset : index
        tj.store %scale_col, %cache_scales[%block, %scale_index]
            : tensor<1x1xf32>, !tj.view<[num_blocks, block_words], f32>
      }
    }
  }
}
