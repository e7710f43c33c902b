// Second half of MLA decode: merges the partitions' partial outputs [.., 512] by their LSEs,
// `heads_per_program` q heads of one query token per program (q_len tokens a sequence, as in
// mla_decode: token i of a sequence of length L sees L - q_len + i + 1 keys), one partition per step (a decode of
// 32K tokens at partition_size 1024 merges 32 of them). Only partitions that hold tokens are
// read (cdiv(seq_len, partition_size), at most max_partitions); a sequence of one partition is
// skipped (mla_decode wrote it), one of length 0 gets 0. A workspace of one partition gives an
// empty grid: mla_decode wrote every output.
tj.template @mla_decode_reduce {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @v_head_size : int values [512] default 512
  tj.param @q_len : int values [1, 2, 3, 4] default 1
  tj.param @partition_size : int range [16, 65536] default 1024
  tj.param @heads_per_program : int values [1, 2, 4, 8, 16] default 4
  tj.param @num_warps : int values [1, 2, 4, 8] default 4
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  tj.launch grid {
    %tokens = tj.shape_symbol "num_tokens" : index
    %q_heads = tj.shape_symbol "num_q_heads" : index
    %per_program = tj.param_value @heads_per_program : index
    %head_groups = arith.ceildivsi %q_heads, %per_program : index
    %one = arith.constant 1 : index
    %zero = arith.constant 0 : index
    %workspace_partitions = tj.shape_symbol "max_partitions" : index
    %beyond_first = arith.subi %workspace_partitions, %one : index
    %capped = arith.minsi %beyond_first, %one : index
    %merges = arith.maxsi %capped, %zero : index
    %programs_y = arith.muli %tokens, %merges : index
    tj.yield %head_groups, %programs_y, %one : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @mla_decode_reduce(
      %output: !tj.view<[num_tokens, num_q_heads, v_head_size], !tj.dtype<"dtype">>,
      %partial_out: !tj.view<[num_tokens, max_partitions, num_q_heads, v_head_size], f32>,
      %partial_lse: !tj.view<[num_tokens, max_partitions, num_q_heads], f32>,
      %seq_lens: !tj.view<[num_seqs], i32>) {
    %token = tj.program_id 1 : index
    %q_len = tj.param_value @q_len : index
    %seq = arith.divsi %token, %q_len : index
    %new_index = arith.remsi %token, %q_len : index
    %len_i32 = tj.load_scalar %seq_lens[%seq] : !tj.view<[num_seqs], i32> -> i32
    tj.wait_previous_kernel ready(%seq_lens : !tj.view<[num_seqs], i32>)
    %head_group = tj.program_id 0 : index
    %per_program = tj.param_value @heads_per_program : index
    %head0 = arith.muli %head_group, %per_program : index
    %partition_size = tj.param_value @partition_size : index
    %v_head_size = tj.param_value @v_head_size : index
    %num_tokens = tj.shape_symbol "num_tokens" : index
    %num_q_heads = tj.shape_symbol "num_q_heads" : index
    %max_partitions = tj.shape_symbol "max_partitions" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %seq_len_all = arith.index_cast %len_i32 : i32 to index
    %len_before = arith.subi %seq_len_all, %q_len : index
    %len_seen = arith.addi %len_before, %new_index : index
    %len_here = arith.addi %len_seen, %c1 : index
    %seq_len = arith.maxsi %len_here, %c0 : index
    %needed = arith.ceildivsi %seq_len, %partition_size : index
    %partitions = arith.minsi %needed, %max_partitions : index
    %merge = arith.cmpi ne, %needed, %c1 : index
    scf.if %merge {
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %zero_h = tj.full %zero [heads_per_program] : f32 -> tensor<?xf32>
      %one_h = tj.full %one [heads_per_program] : f32 -> tensor<?xf32>
      %ninf_h = tj.full %ninf [heads_per_program] : f32 -> tensor<?xf32>
      %zero_o = tj.full %zero [heads_per_program, v_head_size] : f32 -> tensor<?x?xf32>
      // The running max of the LSEs is the shift; the sums are kept relative to it.
      %m, %l, %acc = scf.for %p = %c0 to %partitions step %c1
          iter_args(%m_i = %ninf_h, %l_i = %zero_h, %acc_i = %zero_o)
          -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
        %lse = tj.load %partial_lse[%token, %p, %head0] limits [%num_tokens, %max_partitions, %num_q_heads]
            other %ninf : f32 [heads_per_program]
            : !tj.view<[num_tokens, max_partitions, num_q_heads], f32> -> tensor<?xf32>
        %part = tj.load %partial_out[%token, %p, %head0, %c0]
            limits [%num_tokens, %max_partitions, %num_q_heads, %v_head_size] [heads_per_program, v_head_size]
            : !tj.view<[num_tokens, max_partitions, num_q_heads, v_head_size], f32> -> tensor<?x?xf32>
        %m_new = arith.maximumf %m_i, %lse : tensor<?xf32>
        %m_empty = arith.cmpf oeq, %m_new, %ninf_h : tensor<?xf32>
        %shift = arith.select %m_empty, %zero_h, %m_new : tensor<?xi1>, tensor<?xf32>
        %old_rel = arith.subf %m_i, %shift : tensor<?xf32>
        %alpha = math.exp %old_rel : tensor<?xf32>
        %rel = arith.subf %lse, %shift : tensor<?xf32>
        %w = math.exp %rel : tensor<?xf32>
        %l_old = arith.mulf %l_i, %alpha : tensor<?xf32>
        %l_new = arith.addf %l_old, %w : tensor<?xf32>
        // A partition of weight 0 (an empty one: rows past the heads) adds nothing, whatever
        // its workspace holds (NaN included).
        %w_col = tj.expand_dims %w axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %w_2d = tj.broadcast %w_col [heads_per_program, v_head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
        %w_zero = arith.cmpf oeq, %w_2d, %zero_o : tensor<?x?xf32>
        %weighted = arith.mulf %part, %w_2d : tensor<?x?xf32>
        %added = arith.select %w_zero, %zero_o, %weighted : tensor<?x?xi1>, tensor<?x?xf32>
        %alpha_col = tj.expand_dims %alpha axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %alpha_2d = tj.broadcast %alpha_col [heads_per_program, v_head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
        %acc_old = arith.mulf %acc_i, %alpha_2d : tensor<?x?xf32>
        %acc_new = arith.addf %acc_old, %added : tensor<?x?xf32>
        scf.yield %m_new, %l_new, %acc_new : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
      }
      %l_none = arith.cmpf oeq, %l, %zero_h : tensor<?xf32>
      %divisor = arith.select %l_none, %one_h, %l : tensor<?xi1>, tensor<?xf32>
      %inverse = arith.divf %one_h, %divisor : tensor<?xf32>
      %inverse_col = tj.expand_dims %inverse axis 1 : tensor<?xf32> -> tensor<?x1xf32>
      %inverse_2d = tj.broadcast %inverse_col [heads_per_program, v_head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
      %merged = arith.mulf %acc, %inverse_2d : tensor<?x?xf32>
      %merged_out = arith.truncf %merged : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
      tj.store %merged_out, %output[%token, %head0, %c0] limits [%num_tokens, %num_q_heads, %v_head_size]
          : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_tokens, num_q_heads, v_head_size], !tj.dtype<"dtype">>
    }
  }
}
