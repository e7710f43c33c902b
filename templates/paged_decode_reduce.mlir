// Second half of paged decode: merges the partitions' partial outputs of every GQA group by
// their LSEs (only partitions that hold tokens of the sequence: cdiv(seq_len, partition_size)
// of them; the rest of the workspace is never read). A sequence of length 0 gets 0.
tj.template @paged_decode_reduce {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @head_size : int values [64, 80, 96, 112, 128, 192, 256] default 128
  tj.param @gqa_ratio : int range [1, 16] default 1
  tj.param @q_rows : int values [1, 2, 4, 8, 16, 32]
  tj.param @partition_size : int values [64, 128, 256, 512, 1024, 2048, 4096]
  tj.param @num_warps : int values [1, 2, 4, 8]
  // Occupancy hint (programs resident per SM; 0 = none): caps registers per thread.
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  tj.constraint "q_rows must hold the whole GQA group" {
    %rows = tj.param_value @q_rows : index
    %ratio = tj.param_value @gqa_ratio : index
    %ok = arith.cmpi sge, %rows, %ratio : index
    tj.yield %ok : i1
  }

  tj.launch grid {
    %seqs = tj.shape_symbol "num_seqs" : index
    %q_heads = tj.shape_symbol "num_q_heads" : index
    %ratio = tj.param_value @gqa_ratio : index
    %groups = arith.ceildivsi %q_heads, %ratio : index
    %one = arith.constant 1 : index
    tj.yield %seqs, %groups, %one : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @paged_decode_reduce(
      %output: !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>,
      %partial_out: !tj.view<[num_seqs, max_partitions, num_q_heads, head_size], f32>,
      %partial_lse: !tj.view<[num_seqs, max_partitions, num_q_heads], f32>,
      %seq_lens: !tj.view<[num_seqs], i32>) {
    %seq = tj.program_id 0 : index
    %group = tj.program_id 1 : index
    %ratio = tj.param_value @gqa_ratio : index
    %partition_size = tj.param_value @partition_size : index
    %head_size = tj.param_value @head_size : index
    %num_seqs = tj.shape_symbol "num_seqs" : index
    %num_q_heads = tj.shape_symbol "num_q_heads" : index
    %max_partitions = tj.shape_symbol "max_partitions" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %head0 = arith.muli %group, %ratio : index
    %group_end = arith.addi %head0, %ratio : index
    %head_end = arith.minsi %group_end, %num_q_heads : index
    %len_i32 = tj.load_scalar %seq_lens[%seq] : !tj.view<[num_seqs], i32> -> i32
    %seq_len = arith.index_cast %len_i32 : i32 to index
    %used = arith.ceildivsi %seq_len, %partition_size : index
    %partitions = arith.minsi %used, %max_partitions : index

    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %ninf_r = tj.full %ninf [q_rows] : f32 -> tensor<?xf32>
    %zero_r = tj.full %zero [q_rows] : f32 -> tensor<?xf32>
    %one_r = tj.full %one [q_rows] : f32 -> tensor<?xf32>
    %zero_o = tj.full %zero [q_rows, head_size] : f32 -> tensor<?x?xf32>
    %max = scf.for %p = %c0 to %partitions step %c1 iter_args(%m = %ninf_r) -> (tensor<?xf32>) {
      %lse = tj.load %partial_lse[%seq, %p, %head0] limits [%num_seqs, %max_partitions, %head_end]
          other %ninf : f32 [q_rows] : !tj.view<[num_seqs, max_partitions, num_q_heads], f32> -> tensor<?xf32>
      %m_new = arith.maximumf %m, %lse : tensor<?xf32>
      scf.yield %m_new : tensor<?xf32>
    }
    %empty = arith.cmpf oeq, %max, %ninf_r : tensor<?xf32>
    %shift = arith.select %empty, %zero_r, %max : tensor<?xi1>, tensor<?xf32>
    %sum, %acc = scf.for %p = %c0 to %partitions step %c1
        iter_args(%l = %zero_r, %a = %zero_o) -> (tensor<?xf32>, tensor<?x?xf32>) {
      %lse = tj.load %partial_lse[%seq, %p, %head0] limits [%num_seqs, %max_partitions, %head_end]
          other %ninf : f32 [q_rows] : !tj.view<[num_seqs, max_partitions, num_q_heads], f32> -> tensor<?xf32>
      %rel = arith.subf %lse, %shift : tensor<?xf32>
      %w = math.exp %rel : tensor<?xf32>
      %l_new = arith.addf %l, %w : tensor<?xf32>
      %o = tj.load %partial_out[%seq, %p, %head0, %c0] limits [%num_seqs, %max_partitions, %head_end, %head_size]
          [q_rows, head_size] : !tj.view<[num_seqs, max_partitions, num_q_heads, head_size], f32> -> tensor<?x?xf32>
      %w_col = tj.expand_dims %w axis 1 : tensor<?xf32> -> tensor<?x1xf32>
      %w_2d = tj.broadcast %w_col [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
      // An empty partition (weight 0) never contributes, whatever its workspace holds.
      %w_zero = arith.cmpf oeq, %w_2d, %zero_o : tensor<?x?xf32>
      %weighted = arith.mulf %o, %w_2d : tensor<?x?xf32>
      %part = arith.select %w_zero, %zero_o, %weighted : tensor<?x?xi1>, tensor<?x?xf32>
      %a_new = arith.addf %a, %part : tensor<?x?xf32>
      scf.yield %l_new, %a_new : tensor<?xf32>, tensor<?x?xf32>
    }
    %l_zero = arith.cmpf oeq, %sum, %zero_r : tensor<?xf32>
    %divisor = arith.select %l_zero, %one_r, %sum : tensor<?xi1>, tensor<?xf32>
    %divisor_col = tj.expand_dims %divisor axis 1 : tensor<?xf32> -> tensor<?x1xf32>
    %divisor_2d = tj.broadcast %divisor_col [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
    %merged = arith.divf %acc, %divisor_2d : tensor<?x?xf32>
    %merged_out = arith.truncf %merged : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
    tj.store %merged_out, %output[%seq, %head0, %c0] limits [%num_seqs, %head_end, %head_size]
        : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
  }
}
