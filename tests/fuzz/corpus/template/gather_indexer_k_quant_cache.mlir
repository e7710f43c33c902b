// The inverse of indexer_k_quant_and_cache for chunked prefill: gathers the fp8 K rows and
// their scales of every token of a batch of sequences out of the paged indexer cache into
// dense [num_tokens, 128] fp8 and [num_tokens, 1] float32 (vLLM's
// cp_gather_indexer_k_quant_cache). Sequence s owns output rows [cu_seq_lens[s],
// cu_seq_lens[s + 1]); its token i lives in block block_table[s, i / block_size] at offset
// i % block_size. Output rows outside [cu_seq_lens[0], cu_seq_lens[num_seqs]) are not
// written. The cache is seen as in indexer_k_quant_and_cache (fp8 bytes and 32-bit words,
// flattened per block); every block size in the domain is correct.
tj.template @gather_indexer_k_quant_cache {
  tj.param @block_size : int range [1, 256] default 64
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

  tj.kernel @gather_indexer_k_quant_cache(
      %cache_values: !tj.view<[num_blocks, block_bytes], f8E4M3FN>,
      %cache_scales: !tj.view<[num_blocks, block_words], f32>,
      %dst_k: !tj.view<[num_tokens, 128], f8E4M3FN>,
      %dst_scale: !tj.view<[num_tokens, 1], f32>,
      %block_table: !tj.view<[num_seqs, max_blocks_per_seq], i32>,
      %cu_seq_lens: !tj.view<[num_seqs_plus_one], i32>) {
    %program = tj.program_id 0 : index
    %per_program = tj.param_value @tokens_per_program : index
    %tokens = tj.shape_symbol "num_tokens" : index
    %seqs = tj.shape_symbol "num_seqs" : index
    %block_size = tj.param_value @block_size : index
    %first = arith.muli %program, %per_program : index
    %past_last = arith.addi %first, %per_program : index
    %end = arith.minsi %past_last, %tokens : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %scales_at = arith.muli %block_size, %c32 : index
    %begin_i32 = tj.load_scalar %cu_seq_lens[%c0] : !tj.view<[num_seqs_plus_one], i32> -> i32
    %total_i32 = tj.load_scalar %cu_seq_lens[%seqs] : !tj.view<[num_seqs_plus_one], i32> -> i32
    %begin = arith.index_cast %begin_i32 : i32 to index
    %total = arith.index_cast %total_i32 : i32 to index
    // Steps of the binary search: bits of num_seqs (each halves [lo, hi)).
    %steps, %unused_pow = scf.for %i = %c0 to %c32 step %c1 iter_args(%acc = %c0, %pow = %c1)
        -> (index, index) {
      %needed = arith.cmpi sle, %pow, %seqs : index
      %more = arith.addi %acc, %c1 : index
      %acc_next = arith.select %needed, %more, %acc : index
      %pow_next = arith.muli %pow, %c2 : index
      scf.yield %acc_next, %pow_next : index, index
    }
    // Consecutive tokens mostly share a sequence: its bounds are carried, and searched for
    // (binary search of cu_seq_lens) only where a token falls outside them.
    %carried:3 = scf.for %token = %first to %end step %c1
        iter_args(%seq_c = %c0, %seq_begin_c = %c0, %seq_end_c = %c0) -> (index, index, index) {
      %in_batch = arith.cmpi sge, %token, %begin : index
      %before_total = arith.cmpi slt, %token, %total : index
      %live = arith.andi %in_batch, %before_total : i1
      %next:3 = scf.if %live -> (index, index, index) {
        %after_begin = arith.cmpi sge, %token, %seq_begin_c : index
        %before_end = arith.cmpi slt, %token, %seq_end_c : index
        %known = arith.andi %after_begin, %before_end : i1
        %seq, %seq_begin, %seq_end = scf.if %known -> (index, index, index) {
          scf.yield %seq_c, %seq_begin_c, %seq_end_c : index, index, index
        } else {
          // How many sequences end at or before the token (cu_seq_lens is sorted).
          %found, %unused = scf.for %s = %c0 to %steps step %c1 iter_args(%lo = %c0, %hi = %seqs)
              -> (index, index) {
            %open = arith.cmpi slt, %lo, %hi : index
            %lo_next, %hi_next = scf.if %open -> (index, index) {
              %sum = arith.addi %lo, %hi : index
              %mid = arith.divsi %sum, %c2 : index
              %mid_next = arith.addi %mid, %c1 : index
              %mid_end_i32 = tj.load_scalar %cu_seq_lens[%mid_next] : !tj.view<[num_seqs_plus_one], i32> -> i32
              %mid_end = arith.index_cast %mid_end_i32 : i32 to index
              %ended = arith.cmpi sle, %mid_end, %token : index
              %lo_moved = arith.select %ended, %mid_next, %lo : index
              %hi_moved = arith.select %ended, %hi, %mid : index
              scf.yield %lo_moved, %hi_moved : index, index
            } else {
              scf.yield %lo, %hi : index, index
            }
            scf.yield %lo_next, %hi_next : index, index
          }
          %found_next = arith.addi %found, %c1 : index
          %found_begin_i32 = tj.load_scalar %cu_seq_lens[%found] : !tj.view<[num_seqs_plus_one], i32> -> i32
          %found_end_i32 = tj.load_scalar %cu_seq_lens[%found_next] : !tj.view<[num_seqs_plus_one], i32> -> i32
          %found_begin = arith.index_cast %found_begin_i32 : i32 to index
          %found_end = arith.index_cast %found_end_i32 : i32 to index
          scf.yield %found, %found_begin, %found_end : index, index, index
        }
        %position = arith.subi %token, %seq_begin : index
        %logical = arith.divsi %position, %block_size : index
        %offset = arith.remsi %position, %block_size : index
        %block_i32 = tj.load_scalar %block_table[%seq, %logical] : !tj.view<[num_seqs, max_blocks_per_seq], i32> -> i32
        %block = arith.index_cast %block_i32 : i32 to index
        %value_at = arith.muli %offset, %c128 : index
        %q = tj.load %cache_values[%block, %value_at] [1, 128]
            : !tj.view<[num_blocks, block_bytes], f8E4M3FN> -> tensor<1x128xf8E4M3FN>
        tj.store %q, %dst_k[%token, %c0]
            : tensor<1x128xf8E4M3FN>, !tj.view<[num_tokens, 128], f8E4M3FN>
        %scale_index = arith.addi %scales_at, %offset : index
        %scale = tj.load %cache_scales[%block, %scale_index] [1, 1]
            : !tj.view<[num_blocks, block_words], f32> -> tensor<1x1xf32>
        tj.store %scale, %dst_scale[%token, %c0]
            : tensor<1x1xf32>, !tj.view<[num_tokens, 1], f32>
        scf.yield %seq, %seq_begin, %seq_end : index, index, index
      } else {
        scf.yield %seq_c, %seq_begin_c, %seq_end_c : index, index, index
      }
      scf.yield %next#0, %next#1, %next#2 : index, index, index
    }
  }
}
