// Merges two partial attention results (prefix over a cached context, suffix over new tokens)
// by their log-sum-exp, per token and head (CONTEXT.md section 5: chunked extend).
// LSE layout [num_heads, num_tokens] as in vLLM; +inf marks an empty side (FA2) like -inf.
// A side with LSE -inf contributes nothing even if its output rows hold NaN; when both sides
// are empty the output is 0 and the merged LSE -inf, never NaN.
tj.template @merge_attn_states {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @head_size : int values [32, 64, 80, 96, 112, 128, 192, 256, 512] default 128
  tj.param @heads_per_program : int values [1, 2, 4, 8, 16, 32]
  tj.param @num_warps : int values [1, 2, 4, 8, 16]
  // Occupancy hint (programs resident per SM; 0 = none): caps registers per thread.
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  tj.launch grid {
    %tokens = tj.shape_symbol "num_tokens" : index
    %heads = tj.shape_symbol "num_heads" : index
    %per_program = tj.param_value @heads_per_program : index
    %head_blocks = arith.ceildivsi %heads, %per_program : index
    %one = arith.constant 1 : index
    tj.yield %tokens, %head_blocks, %one : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @merge_attn_states(
      %output: !tj.view<[num_tokens, num_heads, head_size], !tj.dtype<"dtype">>,
      %output_lse: !tj.view<[num_heads, num_tokens], f32>,
      %prefix_output: !tj.view<[num_tokens, num_heads, head_size], !tj.dtype<"dtype">>,
      %prefix_lse: !tj.view<[num_heads, num_tokens], f32>,
      %suffix_output: !tj.view<[num_tokens, num_heads, head_size], !tj.dtype<"dtype">>,
      %suffix_lse: !tj.view<[num_heads, num_tokens], f32>) {
    %token = tj.program_id 0 : index
    %head_block = tj.program_id 1 : index
    %per_program = tj.param_value @heads_per_program : index
    %head0 = arith.muli %head_block, %per_program : index
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %pinf = arith.constant 0x7F800000 : f32
    %zero_h = tj.full %zero [heads_per_program, 1] : f32 -> tensor<?x1xf32>
    %one_h = tj.full %one [heads_per_program, 1] : f32 -> tensor<?x1xf32>
    %ninf_h = tj.full %ninf [heads_per_program, 1] : f32 -> tensor<?x1xf32>
    %pinf_h = tj.full %pinf [heads_per_program, 1] : f32 -> tensor<?x1xf32>

    // LSEs of this token for heads [head0, head0 + heads_per_program), +inf read as -inf.
    %p_raw = tj.load %prefix_lse[%head0, %token] other %ninf : f32 [heads_per_program, 1]
        : !tj.view<[num_heads, num_tokens], f32> -> tensor<?x1xf32>
    %s_raw = tj.load %suffix_lse[%head0, %token] other %ninf : f32 [heads_per_program, 1]
        : !tj.view<[num_heads, num_tokens], f32> -> tensor<?x1xf32>
    %p_is_pinf = arith.cmpf oeq, %p_raw, %pinf_h : tensor<?x1xf32>
    %s_is_pinf = arith.cmpf oeq, %s_raw, %pinf_h : tensor<?x1xf32>
    %p_lse = arith.select %p_is_pinf, %ninf_h, %p_raw : tensor<?x1xi1>, tensor<?x1xf32>
    %s_lse = arith.select %s_is_pinf, %ninf_h, %s_raw : tensor<?x1xi1>, tensor<?x1xf32>

    // Weights relative to the larger LSE; an empty side gets exp(-inf) = 0.
    %max = arith.maximumf %p_lse, %s_lse : tensor<?x1xf32>
    %both_empty = arith.cmpf oeq, %max, %ninf_h : tensor<?x1xf32>
    %shift = arith.select %both_empty, %zero_h, %max : tensor<?x1xi1>, tensor<?x1xf32>
    %p_rel = arith.subf %p_lse, %shift : tensor<?x1xf32>
    %s_rel = arith.subf %s_lse, %shift : tensor<?x1xf32>
    %p_exp = math.exp %p_rel : tensor<?x1xf32>
    %s_exp = math.exp %s_rel : tensor<?x1xf32>
    %sum = arith.addf %p_exp, %s_exp : tensor<?x1xf32>
    %log_sum = math.log %sum : tensor<?x1xf32>
    %merged_lse = arith.addf %log_sum, %shift : tensor<?x1xf32>
    %sum_is_zero = arith.cmpf oeq, %sum, %zero_h : tensor<?x1xf32>
    %divisor = arith.select %sum_is_zero, %one_h, %sum : tensor<?x1xi1>, tensor<?x1xf32>
    %p_weight = arith.divf %p_exp, %divisor : tensor<?x1xf32>
    %s_weight = arith.divf %s_exp, %divisor : tensor<?x1xf32>

    // Outputs: a zero weight selects 0 instead of multiplying, so NaN rows of an empty
    // side never leak (0 * NaN = NaN).
    %p_tile = tj.load %prefix_output[%token, %head0, %c0] [heads_per_program, head_size]
        : !tj.view<[num_tokens, num_heads, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
    %s_tile = tj.load %suffix_output[%token, %head0, %c0] [heads_per_program, head_size]
        : !tj.view<[num_tokens, num_heads, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
    %p_f32 = arith.extf %p_tile : tensor<?x?x!tj.dtype<"dtype">> to tensor<?x?xf32>
    %s_f32 = arith.extf %s_tile : tensor<?x?x!tj.dtype<"dtype">> to tensor<?x?xf32>
    %p_w = tj.broadcast %p_weight [heads_per_program, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
    %s_w = tj.broadcast %s_weight [heads_per_program, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
    %zeros = tj.full %zero [heads_per_program, head_size] : f32 -> tensor<?x?xf32>
    %p_w_zero = arith.cmpf oeq, %p_w, %zeros : tensor<?x?xf32>
    %s_w_zero = arith.cmpf oeq, %s_w, %zeros : tensor<?x?xf32>
    %p_scaled = arith.mulf %p_f32, %p_w : tensor<?x?xf32>
    %s_scaled = arith.mulf %s_f32, %s_w : tensor<?x?xf32>
    %p_part = arith.select %p_w_zero, %zeros, %p_scaled : tensor<?x?xi1>, tensor<?x?xf32>
    %s_part = arith.select %s_w_zero, %zeros, %s_scaled : tensor<?x?xi1>, tensor<?x?xf32>
    %merged = arith.addf %p_part, %s_part : tensor<?x?xf32>
    %merged_out = arith.truncf %merged : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
    tj.store %merged_out, %output[%token, %head0, %c0]
        : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_tokens, num_heads, head_size], !tj.dtype<"dtype">>
    tj.store %merged_lse, %output_lse[%head0, %token]
        : tensor<?x1xf32>, !tj.view<[num_heads, num_tokens], f32>
  }
}
