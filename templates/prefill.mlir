// Varlen flash attention forward (prefill): the sequences' tokens packed one after another,
// sequence s's queries at rows cu_seqlens_q[s] .. cu_seqlens_q[s + 1] - 1 and its keys and
// values at cu_seqlens_k[s] .. cu_seqlens_k[s + 1] - 1. The views are heads-major
// ([heads, tokens, head_size]) over token-major memory: a packed [tokens, heads, head_size]
// tensor passed transposed (torch: q.transpose(0, 1)), no copy; a program's tiles then run
// along the tokens of one head. Causal masks are bottom-right aligned: query row r of a
// sequence of q_len queries and k_len keys sees keys 0 .. r + k_len - q_len (none where that is
// negative: the output 0, the LSE -inf). A sliding window keeps the last `sliding_window` keys
// up to that position (0 = all); ALiBi adds -slope * |key position - query position|; the soft
// cap is cap * tanh(logit / cap) before ALiBi (paged_decode's conventions).
// Grid (from shapes only: capturable): one program per (q tile, q head), the tiles of all
// sequences numbered in order, cdiv(num_q_tokens + num_seqs * (block_m - 1), block_m) of them
// (an upper bound of the tiles of any split of num_q_tokens into num_seqs sequences); programs
// past the last tile exit at once. Within a sequence the last tiles (the most keys when causal)
// come first in launch order. Q, K and V tiles only feed the dots: on GPU targets they live in
// shared memory, the next K/V tiles copied while this one's math runs.
tj.template @prefill {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @head_size : int values [64, 80, 96, 128, 192, 256] default 128
  // V's width: head_size, or 128 with a q/k head of 192 (MLA prefill, DeepSeek-V3).
  tj.param @v_head_size : int values [64, 80, 96, 128, 192, 256] default 128
  tj.param @gqa_ratio : int range [1, 16] default 1
  tj.param @causal : int values [0, 1] default 1
  tj.param @soft_cap : int values [0, 1] default 0
  tj.param @alibi : int values [0, 1] default 0
  tj.param @block_m : int values [16, 32, 64, 128]
  tj.param @block_n : int values [16, 32, 64, 128]
  tj.param @num_warps : int values [1, 2, 4, 8]
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  tj.constraint "v_head_size must be head_size, or 128 with head_size 192 (MLA prefill)" {
    %d = tj.param_value @head_size : index
    %dv = tj.param_value @v_head_size : index
    %same = arith.cmpi eq, %d, %dv : index
    %c192 = arith.constant 192 : index
    %c128 = arith.constant 128 : index
    %mla_qk = arith.cmpi eq, %d, %c192 : index
    %mla_v = arith.cmpi eq, %dv, %c128 : index
    %mla = arith.andi %mla_qk, %mla_v : i1
    %ok = arith.ori %same, %mla : i1
    tj.yield %ok : i1
  }

  tj.launch grid {
    %tokens = tj.shape_symbol "num_q_tokens" : index
    %starts = tj.shape_symbol "num_seqs_plus_one" : index
    %heads = tj.shape_symbol "num_q_heads" : index
    %rows = tj.param_value @block_m : index
    %c1 = arith.constant 1 : index
    %seqs = arith.subi %starts, %c1 : index
    %pad = arith.subi %rows, %c1 : index
    %padding = arith.muli %seqs, %pad : index
    %bound = arith.addi %tokens, %padding : index
    %tiles = arith.ceildivsi %bound, %rows : index
    %programs = arith.maxsi %tiles, %c1 : index
    tj.yield %programs, %heads, %c1 : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @prefill(
      %output: !tj.view<[num_q_heads, num_q_tokens, v_head_size], !tj.dtype<"dtype">>,
      %lse: !tj.view<[num_q_heads, num_q_tokens], f32>,
      %query: !tj.view<[num_q_heads, num_q_tokens, head_size], !tj.dtype<"dtype">>,
      %key: !tj.view<[num_kv_heads, num_k_tokens, head_size], !tj.dtype<"dtype">>,
      %value: !tj.view<[num_kv_heads, num_k_tokens, v_head_size], !tj.dtype<"dtype">>,
      %cu_seqlens_q: !tj.view<[num_seqs_plus_one], i32>,
      %cu_seqlens_k: !tj.view<[num_seqs_plus_one], i32>,
      %alibi_slopes: !tj.view<[num_q_heads], f32>,
      %scale: f32, %soft_cap_value: f32, %sliding_window: i32) {
    %program = tj.program_id 0 : index
    %head = tj.program_id 1 : index
    %block_m = tj.param_value @block_m : index
    %block_n = tj.param_value @block_n : index
    %head_size = tj.param_value @head_size : index
    %v_head_size = tj.param_value @v_head_size : index
    %ratio = tj.param_value @gqa_ratio : index
    %num_q_heads = tj.shape_symbol "num_q_heads" : index
    %num_kv_heads = tj.shape_symbol "num_kv_heads" : index
    %starts = tj.shape_symbol "num_seqs_plus_one" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %num_seqs = arith.subi %starts, %c1 : index
    // Which sequence and q tile this program holds: the sequences' tiles counted in order (a
    // scalar walk over cu_seqlens_q; the tile is counted from the sequence's last).
    %first_i32 = tj.load_scalar %cu_seqlens_q[%c0] : !tj.view<[num_seqs_plus_one], i32> -> i32
    %first = arith.index_cast %first_i32 : i32 to index
    %seq, %tile, %tiles_total, %last_end = scf.for %s = %c0 to %num_seqs step %c1
        iter_args(%seq_i = %c0, %tile_i = %c0, %base = %c0, %begin = %first)
        -> (index, index, index, index) {
      %s_next = arith.addi %s, %c1 : index
      %end_i32 = tj.load_scalar %cu_seqlens_q[%s_next] : !tj.view<[num_seqs_plus_one], i32> -> i32
      %end = arith.index_cast %end_i32 : i32 to index
      %len = arith.subi %end, %begin : index
      %tiles = arith.ceildivsi %len, %block_m : index
      %next = arith.addi %base, %tiles : index
      %after = arith.cmpi sge, %program, %base : index
      %before = arith.cmpi slt, %program, %next : index
      %here = arith.andi %after, %before : i1
      %next_last = arith.subi %next, %c1 : index
      %from_last = arith.subi %next_last, %program : index
      %seq_n = arith.select %here, %s, %seq_i : index
      %tile_n = arith.select %here, %from_last, %tile_i : index
      scf.yield %seq_n, %tile_n, %next, %end : index, index, index, index
    }
    %active = arith.cmpi slt, %program, %tiles_total : index
    scf.if %active {
      %seq_next = arith.addi %seq, %c1 : index
      %q_start_i32 = tj.load_scalar %cu_seqlens_q[%seq] : !tj.view<[num_seqs_plus_one], i32> -> i32
      %q_end_i32 = tj.load_scalar %cu_seqlens_q[%seq_next] : !tj.view<[num_seqs_plus_one], i32> -> i32
      %k_start_i32 = tj.load_scalar %cu_seqlens_k[%seq] : !tj.view<[num_seqs_plus_one], i32> -> i32
      %k_end_i32 = tj.load_scalar %cu_seqlens_k[%seq_next] : !tj.view<[num_seqs_plus_one], i32> -> i32
      %q_start = arith.index_cast %q_start_i32 : i32 to index
      %q_end = arith.index_cast %q_end_i32 : i32 to index
      %k_start = arith.index_cast %k_start_i32 : i32 to index
      %k_end = arith.index_cast %k_end_i32 : i32 to index
      %q_len = arith.subi %q_end, %q_start : index
      %k_len_raw = arith.subi %k_end, %k_start : index
      %k_len = arith.maxsi %k_len_raw, %c0 : index
      %m0 = arith.muli %tile, %block_m : index
      %row0 = arith.addi %q_start, %m0 : index
      %tile_rows_end = arith.addi %m0, %block_m : index
      %rows_end = arith.minsi %tile_rows_end, %q_len : index
      %kv_head = arith.divsi %head, %ratio : index
      // Query row r sits at key position r + offset (bottom-right alignment).
      %offset = arith.subi %k_len, %q_len : index
      %causal = tj.param_value @causal : i1
      %last_row = arith.subi %rows_end, %c1 : index
      %last_seen = arith.addi %last_row, %offset : index
      %diagonal_end = arith.addi %last_seen, %c1 : index
      %causal_end_raw = arith.minsi %diagonal_end, %k_len : index
      %causal_end = arith.maxsi %causal_end_raw, %c0 : index
      %hi = arith.select %causal, %causal_end, %k_len : index
      %window = arith.index_cast %sliding_window : i32 to index
      %has_window = arith.cmpi sgt, %window, %c0 : index
      %first_position = arith.addi %m0, %offset : index
      %window_from = arith.subi %first_position, %window : index
      %window_first = arith.addi %window_from, %c1 : index
      %window_lo = arith.maxsi %window_first, %c0 : index
      %lo = arith.select %has_window, %window_lo, %c0 : index
      %k_row0 = arith.addi %k_start, %lo : index
      %k_limit = arith.addi %k_start, %hi : index

      %q = tj.load %query[%head, %row0, %c0] limits [%num_q_heads, %q_end, %head_size] [block_m, head_size]
          : !tj.view<[num_q_heads, num_q_tokens, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
      %zero = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %m_init = tj.full %ninf [block_m] : f32 -> tensor<?xf32>
      %acc0 = tj.full %zero [block_m, v_head_size] : f32 -> tensor<?x?xf32>
      %zero_s = tj.full %zero [block_m, block_n] : f32 -> tensor<?x?xf32>
      %ninf_s = tj.full %ninf [block_m, block_n] : f32 -> tensor<?x?xf32>
      %zero_r = tj.full %zero [block_m] : f32 -> tensor<?xf32>
      %ninf_r = tj.full %ninf [block_m] : f32 -> tensor<?xf32>
      // Logits in base 2: scale, cap and slope times log2(e) once; exponentials are exp2.
      %log2e = arith.constant 1.44269504 : f32
      %scale2 = arith.mulf %scale, %log2e : f32
      %scale_s = tj.full %scale2 [block_m, block_n] : f32 -> tensor<?x?xf32>
      %soft_cap2 = arith.mulf %soft_cap_value, %log2e : f32
      %slope = tj.load_scalar %alibi_slopes[%head] : !tj.view<[num_q_heads], f32> -> f32
      %slope2 = arith.mulf %slope, %log2e : f32
      %c0_i32 = arith.constant 0 : i32
      %m0_i32 = arith.index_cast %first_position : index to i32
      // Each logit's query position (rows) and the column index (added to the tile start).
      %positions_q = tj.range %m0_i32 [block_m, block_n] axis 0 : i32 -> tensor<?x?xi32>
      %columns = tj.range %c0_i32 [block_m, block_n] axis 1 : i32 -> tensor<?x?xi32>
      %k_len_i32 = arith.index_cast %k_len : index to i32
      %k_len_2d = tj.full %k_len_i32 [block_m, block_n] : i32 -> tensor<?x?xi32>
      %window_i32 = arith.index_cast %window : index to i32
      %window_2d = tj.full %window_i32 [block_m, block_n] : i32 -> tensor<?x?xi32>
      %block_m_last = arith.subi %block_m, %c1 : index
      %tile_last_position = arith.addi %first_position, %block_m_last : index
      %window_safe_from = arith.subi %tile_last_position, %window : index
      %true = arith.constant true
      %acausal = arith.xori %causal, %true : i1
      %acausal_2d = tj.full %acausal [block_m, block_n] : i1 -> tensor<?x?xi1>
      %no_window = arith.xori %has_window, %true : i1
      %no_window_2d = tj.full %no_window [block_m, block_n] : i1 -> tensor<?x?xi1>

      %k_first = tj.load %key[%kv_head, %k_row0, %c0] limits [%num_kv_heads, %k_limit, %head_size] [block_n, head_size]
          : !tj.view<[num_kv_heads, num_k_tokens, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
      %v_first = tj.load %value[%kv_head, %k_row0, %c0] limits [%num_kv_heads, %k_limit, %v_head_size] [block_n, v_head_size]
          : !tj.view<[num_kv_heads, num_k_tokens, v_head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
      // Row sums carried per column and summed once after the loop (as paged_decode).
      %m, %l_cols, %acc, %k_past, %v_past = scf.for %t0 = %lo to %hi step %block_n
          iter_args(%m_i = %m_init, %l_i = %zero_s, %acc_i = %acc0, %k = %k_first, %v = %v_first)
          -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>) {
        %t_next = arith.addi %t0, %block_n : index
        %k_row_next = arith.addi %k_start, %t_next : index
        %k_next = tj.load %key[%kv_head, %k_row_next, %c0] limits [%num_kv_heads, %k_limit, %head_size] [block_n, head_size]
            : !tj.view<[num_kv_heads, num_k_tokens, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
        %qk = tj.dot %q, %k, %zero_s {trans_b}
            : tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?xf32> -> tensor<?x?xf32>
        // V's next tile after the first dot, whose wait frees the slot the last PV read.
        %v_next = tj.load %value[%kv_head, %k_row_next, %c0] limits [%num_kv_heads, %k_limit, %v_head_size] [block_n, v_head_size]
            : !tj.view<[num_kv_heads, num_k_tokens, v_head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
        %scaled = arith.mulf %qk, %scale_s : tensor<?x?xf32>
        %soft_cap_on = tj.param_value @soft_cap : i1
        %capped = scf.if %soft_cap_on -> tensor<?x?xf32> {
          %cap = tj.full %soft_cap2 [block_m, block_n] : f32 -> tensor<?x?xf32>
          %ratio_s = arith.divf %scaled, %cap : tensor<?x?xf32>
          %tanh = math.tanh %ratio_s : tensor<?x?xf32>
          %out = arith.mulf %tanh, %cap : tensor<?x?xf32>
          scf.yield %out : tensor<?x?xf32>
        } else {
          scf.yield %scaled : tensor<?x?xf32>
        }
        %t0_i32 = arith.index_cast %t0 : index to i32
        %t0_2d = tj.full %t0_i32 [block_m, block_n] : i32 -> tensor<?x?xi32>
        %positions_k = arith.addi %columns, %t0_2d : tensor<?x?xi32>
        %alibi_on = tj.param_value @alibi : i1
        %biased = scf.if %alibi_on -> tensor<?x?xf32> {
          %distance = arith.subi %positions_k, %positions_q : tensor<?x?xi32>
          %distance_f = arith.sitofp %distance : tensor<?x?xi32> to tensor<?x?xf32>
          %far = math.absf %distance_f : tensor<?x?xf32>
          %neg_slope2 = arith.negf %slope2 : f32
          %slope_2d = tj.full %neg_slope2 [block_m, block_n] : f32 -> tensor<?x?xf32>
          %bias = arith.mulf %slope_2d, %far : tensor<?x?xf32>
          %with_bias = arith.addf %capped, %bias : tensor<?x?xf32>
          scf.yield %with_bias : tensor<?x?xf32>
        } else {
          scf.yield %capped : tensor<?x?xf32>
        }
        // Keys past the end, past the diagonal or before the window weigh exactly 0; the
        // tiles clear of all three (most of them) skip the mask.
        %tile_end = arith.addi %t0, %block_n : index
        %straddles_end = arith.cmpi sgt, %tile_end, %k_len : index
        %tile_last = arith.subi %tile_end, %c1 : index
        %past_diagonal = arith.cmpi sgt, %tile_last, %first_position : index
        %straddles_diagonal = arith.andi %causal, %past_diagonal : i1
        %before_window = arith.cmpi sle, %t0, %window_safe_from : index
        %straddles_window = arith.andi %has_window, %before_window : i1
        %edge = arith.ori %straddles_end, %straddles_diagonal : i1
        %needs_mask = arith.ori %edge, %straddles_window : i1
        %logits = scf.if %needs_mask -> tensor<?x?xf32> {
          %in_keys = arith.cmpi slt, %positions_k, %k_len_2d : tensor<?x?xi32>
          %seen = arith.cmpi sle, %positions_k, %positions_q : tensor<?x?xi32>
          %causal_ok = arith.ori %seen, %acausal_2d : tensor<?x?xi1>
          %distance_w = arith.subi %positions_q, %positions_k : tensor<?x?xi32>
          %in_window = arith.cmpi slt, %distance_w, %window_2d : tensor<?x?xi32>
          %window_ok = arith.ori %in_window, %no_window_2d : tensor<?x?xi1>
          %valid_kc = arith.andi %in_keys, %causal_ok : tensor<?x?xi1>
          %valid = arith.andi %valid_kc, %window_ok : tensor<?x?xi1>
          %masked = arith.select %valid, %biased, %ninf_s : tensor<?x?xi1>, tensor<?x?xf32>
          scf.yield %masked : tensor<?x?xf32>
        } else {
          scf.yield %biased : tensor<?x?xf32>
        }
        // Online softmax; a row with no key so far keeps m = -inf and shifts by 0.
        %tile_max = tj.reduce max %logits axis 1 : tensor<?x?xf32> -> tensor<?xf32>
        %m_new = arith.maximumf %m_i, %tile_max : tensor<?xf32>
        %m_empty = arith.cmpf oeq, %m_new, %ninf_r : tensor<?xf32>
        %shift = arith.select %m_empty, %zero_r, %m_new : tensor<?xi1>, tensor<?xf32>
        %old_rel = arith.subf %m_i, %shift : tensor<?xf32>
        %alpha = math.exp2 %old_rel : tensor<?xf32>
        %shift_col = tj.expand_dims %shift axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %shift_2d = tj.broadcast %shift_col [block_m, block_n] : tensor<?x1xf32> -> tensor<?x?xf32>
        %rel = arith.subf %logits, %shift_2d : tensor<?x?xf32>
        %p = math.exp2 %rel : tensor<?x?xf32>
        %alpha_col = tj.expand_dims %alpha axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %alpha_s = tj.broadcast %alpha_col [block_m, block_n] : tensor<?x1xf32> -> tensor<?x?xf32>
        %l_scaled = arith.mulf %l_i, %alpha_s : tensor<?x?xf32>
        %l_new = arith.addf %l_scaled, %p : tensor<?x?xf32>
        %p_low = arith.truncf %p : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
        %alpha_2d = tj.broadcast %alpha_col [block_m, v_head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
        %acc_scaled = arith.mulf %acc_i, %alpha_2d : tensor<?x?xf32>
        %acc_new = tj.dot %p_low, %v, %acc_scaled
            : tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?xf32> -> tensor<?x?xf32>
        scf.yield %m_new, %l_new, %acc_new, %k_next, %v_next
            : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>
      }
      %l = tj.reduce sum %l_cols axis 1 : tensor<?x?xf32> -> tensor<?xf32>
      // acc / l and lse = m + log(l) in natural units; a row that saw no key: 0 and -inf.
      %l_zero = arith.cmpf oeq, %l, %zero_r : tensor<?xf32>
      %one = arith.constant 1.0 : f32
      %one_r = tj.full %one [block_m] : f32 -> tensor<?xf32>
      %divisor = arith.select %l_zero, %one_r, %l : tensor<?xi1>, tensor<?xf32>
      %inverse = arith.divf %one_r, %divisor : tensor<?xf32>
      %inverse_col = tj.expand_dims %inverse axis 1 : tensor<?xf32> -> tensor<?x1xf32>
      %inverse_2d = tj.broadcast %inverse_col [block_m, v_head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
      %normalized = arith.mulf %acc, %inverse_2d : tensor<?x?xf32>
      %log_l = math.log %divisor : tensor<?xf32>
      %ln2 = arith.constant 0.693147182 : f32
      %ln2_r = tj.full %ln2 [block_m] : f32 -> tensor<?xf32>
      %m_natural = arith.mulf %m, %ln2_r : tensor<?xf32>
      %lse_valid = arith.addf %m_natural, %log_l : tensor<?xf32>
      %lse_rows = arith.select %l_zero, %ninf_r, %lse_valid : tensor<?xi1>, tensor<?xf32>
      %final = arith.truncf %normalized : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
      tj.store %final, %output[%head, %row0, %c0] limits [%num_q_heads, %q_end, %v_head_size]
          : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_q_heads, num_q_tokens, v_head_size], !tj.dtype<"dtype">>
      tj.store %lse_rows, %lse[%head, %row0] limits [%num_q_heads, %q_end]
          : tensor<?xf32>, !tj.view<[num_q_heads, num_q_tokens], f32>
    }
  }
}
