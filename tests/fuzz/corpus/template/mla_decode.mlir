// Absorbed MLA decode (DeepSeek-V3/R1, Kimi K2, GLM-5), split-K: q_len query tokens per
// sequence (1, or 2..4 for MTP / speculative verify: tokens s*q_len .. s*q_len + q_len - 1 are
// sequence s's, causal among themselves: the i-th of a sequence of length L sees keys
// 0 .. L - q_len + i); every q head reads one 576-wide latent per token (512 "nope" columns + 64 rope),
// which is both K (all 576 columns) and V (the first 512). The cache is paged like a K cache of
// one kv head, [num_blocks, block_size, 1, 576] (the [num_blocks, block_size, 576] latent cache
// with a unit head axis), so tj.paged_load gathers it through the block table; offsets are
// 64-bit in every device library, so caches past 2^31 elements are addressed.
// Grid (from shapes only: graph capture stays valid): q-head blocks of q_rows x tokens x
// partitions of partition_size keys. A sequence's tokens are programs of their own over the
// same latents (adjacent in launch order: their re-reads meet in L2). A program holds q_rows heads of one sequence as the M
// dimension of both dots and reads each latent tile of its partition once for all of them:
// the tile feeds QK^T over its 576 columns and PV over the same tile, whose last 64 columns
// of the [q_rows, 576] accumulator are never stored. With more heads than q_rows (64, 128) the
// head blocks' programs read the same tiles, launched next to each other (the blocks vary
// fastest), so the re-reads meet in L2 (what bench/bench_mla.py measures at 128 heads).
// Each program writes its heads' partial output and LSE; mla_decode_reduce merges them. A
// sequence of one partition gets its output here and the merge skips it; a grid of one
// partition writes every output here (0 for an empty sequence), and no merge is launched.
tj.template @mla_decode {
  tj.param @dtype : type values [f16, bf16] default bf16
  // The latent's width (kv_lora_rank 512 + rope 64) and V's (kv_lora_rank).
  tj.param @head_size : int values [576] default 576
  tj.param @v_head_size : int values [512] default 512
  tj.param @q_len : int values [1, 2, 3, 4] default 1
  tj.param @block_size : int values [1, 8, 16, 32, 64, 128, 256] default 64
  tj.param @q_rows : int values [1, 2, 4, 8, 16, 32, 64] default 16
  tj.param @block_n : int values [16, 32, 64] default 32
  tj.param @partition_size : int range [16, 65536] default 1024
  tj.param @num_warps : int values [1, 2, 4, 8] default 4
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  tj.constraint "partition_size must be a multiple of block_n" {
    %p = tj.param_value @partition_size : index
    %n = tj.param_value @block_n : index
    %r = arith.remsi %p, %n : index
    %c0 = arith.constant 0 : index
    %ok = arith.cmpi eq, %r, %c0 : index
    tj.yield %ok : i1
  }

  tj.launch grid {
    %head_blocks_x = tj.shape_symbol "num_q_heads" : index
    %rows = tj.param_value @q_rows : index
    %blocks = arith.ceildivsi %head_blocks_x, %rows : index
    %tokens = tj.shape_symbol "num_tokens" : index
    %partitions = tj.shape_symbol "max_partitions" : index
    tj.yield %blocks, %tokens, %partitions : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @mla_decode(
      %output: !tj.view<[num_tokens, num_q_heads, v_head_size], !tj.dtype<"dtype">>,
      %partial_out: !tj.view<[num_tokens, max_partitions, num_q_heads, v_head_size], f32>,
      %partial_lse: !tj.view<[num_tokens, max_partitions, num_q_heads], f32>,
      %query: !tj.view<[num_tokens, num_q_heads, head_size], !tj.dtype<"dtype">>,
      %latent_cache: !tj.kv_cache<latent, [num_blocks, block_size, 1, head_size], !tj.dtype<"dtype">, layout = standard>,
      %block_tables: !tj.view<[num_seqs, max_blocks_per_seq], i32>,
      %seq_lens: !tj.view<[num_seqs], i32>,
      %scale: f32) {
    tj.start_next_kernel
    %head_block = tj.program_id 0 : index
    %token = tj.program_id 1 : index
    %q_len = tj.param_value @q_len : index
    %seq = arith.divsi %token, %q_len : index
    %new_index = arith.remsi %token, %q_len : index
    %partition = tj.program_id 2 : index
    %q_rows = tj.param_value @q_rows : index
    %partition_size = tj.param_value @partition_size : index
    %block_n = tj.param_value @block_n : index
    %block_size = tj.param_value @block_size : index
    %head_size = tj.param_value @head_size : index
    %v_head_size = tj.param_value @v_head_size : index
    %num_tokens = tj.shape_symbol "num_tokens" : index
    %num_q_heads = tj.shape_symbol "num_q_heads" : index
    %max_partitions = tj.shape_symbol "max_partitions" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %start = arith.muli %partition, %partition_size : index
    // The partition's table entries travel while the length does (as in paged_decode).
    %first_block = arith.divsi %start, %block_size : index
    %partition_blocks = arith.ceildivsi %partition_size, %block_size : index
    %table_entries = arith.addi %partition_blocks, %c1 : index
    tj.prefetch %block_tables[%seq, %first_block] count %table_entries
        : !tj.view<[num_seqs, max_blocks_per_seq], i32>
    %len_i32 = tj.load_scalar %seq_lens[%seq] : !tj.view<[num_seqs], i32> -> i32
    %seq_len_all = arith.index_cast %len_i32 : i32 to index
    // The keys this token sees: L - q_len + i + 1 (none for an empty sequence).
    %len_before = arith.subi %seq_len_all, %q_len : index
    %len_seen = arith.addi %len_before, %new_index : index
    %len_here = arith.addi %len_seen, %c1 : index
    %seq_len = arith.maxsi %len_here, %c0 : index
    %head0 = arith.muli %head_block, %q_rows : index
    %block_end = arith.addi %head0, %q_rows : index
    %head_end = arith.minsi %block_end, %num_q_heads : index
    // Programs holding no token exit, but for a grid of one partition, where no merge runs:
    // there partition 0 of an empty sequence goes down the common path and writes 0.
    %has_tokens = arith.cmpi slt, %start, %seq_len : index
    %one_partition = arith.cmpi eq, %max_partitions, %c1 : index
    %active = arith.ori %has_tokens, %one_partition : i1
    scf.if %active {
      %past_partition = arith.addi %start, %partition_size : index
      %end = arith.minsi %past_partition, %seq_len : index
      %q = tj.load %query[%token, %head0, %c0] limits [%num_tokens, %head_end, %head_size] [q_rows, head_size]
          : !tj.view<[num_tokens, num_q_heads, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
      %zero = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %m0 = tj.full %ninf [q_rows] : f32 -> tensor<?xf32>
      %acc0 = tj.full %zero [q_rows, head_size] : f32 -> tensor<?x?xf32>
      %zero_s = tj.full %zero [q_rows, block_n] : f32 -> tensor<?x?xf32>
      %ninf_s = tj.full %ninf [q_rows, block_n] : f32 -> tensor<?x?xf32>
      %zero_r = tj.full %zero [q_rows] : f32 -> tensor<?xf32>
      %ninf_r = tj.full %ninf [q_rows] : f32 -> tensor<?xf32>
      // Logits in base 2: the scale times log2(e) once, the exponentials exp2 of differences.
      %log2e = arith.constant 1.44269504 : f32
      %scale2 = arith.mulf %scale, %log2e : f32
      %scale_s = tj.full %scale2 [q_rows, block_n] : f32 -> tensor<?x?xf32>
      %c0_i32 = arith.constant 0 : i32
      %columns_2d = tj.range %c0_i32 [q_rows, block_n] axis 1 : i32 -> tensor<?x?xi32>
      %end_i32 = arith.index_cast %end : index to i32
      %end_2d = tj.full %end_i32 [q_rows, block_n] : i32 -> tensor<?x?xi32>
      %kv_first = tj.paged_load %latent_cache, %block_tables[%seq] tokens %start limit %end head %c0 [block_n, head_size]
          : !tj.kv_cache<latent, [num_blocks, block_size, 1, head_size], !tj.dtype<"dtype">, layout = standard>, !tj.view<[num_seqs, max_blocks_per_seq], i32> -> tensor<?x?x!tj.dtype<"dtype">>
      // Row sums per column, summed once after the loop (no row reduction per tile).
      %m, %l_cols, %acc, %kv_past = scf.for %t0 = %start to %end step %block_n
          iter_args(%m_i = %m0, %l_i = %zero_s, %acc_i = %acc0, %kv = %kv_first)
          -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!tj.dtype<"dtype">>) {
        %t_next = arith.addi %t0, %block_n : index
        %qk = tj.dot %q, %kv, %zero_s {trans_b}
            : tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?xf32> -> tensor<?x?xf32>
        %scaled = arith.mulf %qk, %scale_s : tensor<?x?xf32>
        // Tokens past the end weigh exactly 0; only the tile that straddles it needs the mask.
        %tile_end = arith.addi %t0, %block_n : index
        %straddles = arith.cmpi sgt, %tile_end, %end : index
        %logits = scf.if %straddles -> tensor<?x?xf32> {
          %t0_i32 = arith.index_cast %t0 : index to i32
          %t0_2d = tj.full %t0_i32 [q_rows, block_n] : i32 -> tensor<?x?xi32>
          %positions = arith.addi %columns_2d, %t0_2d : tensor<?x?xi32>
          %valid = arith.cmpi slt, %positions, %end_2d : tensor<?x?xi32>
          %masked = arith.select %valid, %scaled, %ninf_s : tensor<?x?xi1>, tensor<?x?xf32>
          scf.yield %masked : tensor<?x?xf32>
        } else {
          scf.yield %scaled : tensor<?x?xf32>
        }
        %tile_max = tj.reduce max %logits axis 1 : tensor<?x?xf32> -> tensor<?xf32>
        %m_new = arith.maximumf %m_i, %tile_max : tensor<?xf32>
        %m_empty = arith.cmpf oeq, %m_new, %ninf_r : tensor<?xf32>
        %shift = arith.select %m_empty, %zero_r, %m_new : tensor<?xi1>, tensor<?xf32>
        %old_rel = arith.subf %m_i, %shift : tensor<?xf32>
        %alpha = math.exp2 %old_rel : tensor<?xf32>
        %shift_col = tj.expand_dims %shift axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %shift_2d = tj.broadcast %shift_col [q_rows, block_n] : tensor<?x1xf32> -> tensor<?x?xf32>
        %rel = arith.subf %logits, %shift_2d : tensor<?x?xf32>
        %p = math.exp2 %rel : tensor<?x?xf32>
        %alpha_col = tj.expand_dims %alpha axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %alpha_s = tj.broadcast %alpha_col [q_rows, block_n] : tensor<?x1xf32> -> tensor<?x?xf32>
        %l_scaled = arith.mulf %l_i, %alpha_s : tensor<?x?xf32>
        %l_new = arith.addf %l_scaled, %p : tensor<?x?xf32>
        %p_low = arith.truncf %p : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
        %alpha_2d = tj.broadcast %alpha_col [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
        %acc_scaled = arith.mulf %acc_i, %alpha_2d : tensor<?x?xf32>
        // V is the same tile: no second read of the latent.
        %acc_new = tj.dot %p_low, %kv, %acc_scaled
            : tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?xf32> -> tensor<?x?xf32>
        %kv_next = tj.paged_load %latent_cache, %block_tables[%seq] tokens %t_next limit %end head %c0 [block_n, head_size]
            : !tj.kv_cache<latent, [num_blocks, block_size, 1, head_size], !tj.dtype<"dtype">, layout = standard>, !tj.view<[num_seqs, max_blocks_per_seq], i32> -> tensor<?x?x!tj.dtype<"dtype">>
        scf.yield %m_new, %l_new, %acc_new, %kv_next
            : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!tj.dtype<"dtype">>
      }
      %l = tj.reduce sum %l_cols axis 1 : tensor<?x?xf32> -> tensor<?xf32>
      // Partial result: acc / l and lse = m + log(l) in natural units; an empty one 0, -inf.
      %l_zero = arith.cmpf oeq, %l, %zero_r : tensor<?xf32>
      %one = arith.constant 1.0 : f32
      %one_r = tj.full %one [q_rows] : f32 -> tensor<?xf32>
      %divisor = arith.select %l_zero, %one_r, %l : tensor<?xi1>, tensor<?xf32>
      %inverse = arith.divf %one_r, %divisor : tensor<?xf32>
      %inverse_col = tj.expand_dims %inverse axis 1 : tensor<?xf32> -> tensor<?x1xf32>
      %inverse_2d = tj.broadcast %inverse_col [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
      %normalized = arith.mulf %acc, %inverse_2d : tensor<?x?xf32>
      %log_l = math.log %divisor : tensor<?xf32>
      %ln2 = arith.constant 0.693147182 : f32
      %ln2_r = tj.full %ln2 [q_rows] : f32 -> tensor<?xf32>
      %m_natural = arith.mulf %m, %ln2_r : tensor<?xf32>
      %lse_valid = arith.addf %m_natural, %log_l : tensor<?xf32>
      %lse = arith.select %l_zero, %ninf_r, %lse_valid : tensor<?xi1>, tensor<?xf32>
      // Only V's 512 columns leave the program (the limits cut the rope columns).
      %needed = arith.ceildivsi %seq_len, %partition_size : index
      %used = arith.minsi %needed, %max_partitions : index
      %single = arith.cmpi sle, %used, %c1 : index
      scf.if %single {
        %final = arith.truncf %normalized : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
        tj.store %final, %output[%token, %head0, %c0] limits [%num_tokens, %head_end, %v_head_size]
            : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_tokens, num_q_heads, v_head_size], !tj.dtype<"dtype">>
      } else {
        tj.store %normalized, %partial_out[%token, %partition, %head0, %c0]
            limits [%num_tokens, %max_partitions, %head_end, %v_head_size]
            : tensor<?x?xf32>, !tj.view<[num_tokens, max_partitions, num_q_heads, v_head_size], f32>
        tj.store %lse, %partial_lse[%token, %partition, %head0] limits [%num_tokens, %max_partitions, %head_end]
            : tensor<?xf32>, !tj.view<[num_tokens, max_partitions, num_q_heads], f32>
      }
    }
  }
}
