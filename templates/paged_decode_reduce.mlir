// Second half of paged decode: merges the partitions' partial outputs by their LSEs, one q head
// per program. Only partitions that hold tokens of the sequence are read
// (cdiv(seq_len, partition_size) of them; the rest of the workspace never is); a sequence of
// one partition is skipped: paged_decode wrote its output. The partitions
// are taken `partitions_per_step` at a time in one load each for outputs and LSEs, so a program
// waits for memory once per step rather than once per partition (small batches at long context
// are latency-bound here), merged online as the split-K kernel merges tiles. A sequence of
// length 0 gets 0.
tj.template @paged_decode_reduce {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @head_size : int values [64, 80, 96, 112, 128, 192, 256] default 128
  tj.param @partition_size : int values [64, 128, 256, 512, 1024, 2048, 4096]
  tj.param @partitions_per_step : int values [1, 2, 4, 8, 16, 32]
  tj.param @num_warps : int values [1, 2, 4, 8]
  // Occupancy hint (programs resident per SM; 0 = none): caps registers per thread.
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  tj.launch grid {
    %seqs = tj.shape_symbol "num_seqs" : index
    %q_heads = tj.shape_symbol "num_q_heads" : index
    %one = arith.constant 1 : index
    tj.yield %seqs, %q_heads, %one : index, index, index
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
    // Launched while the split-K kernel still runs (where the target allows); reads nothing
    // before that kernel's partials are all written.
    tj.wait_previous_kernel
    %seq = tj.program_id 0 : index
    %head = tj.program_id 1 : index
    %partition_size = tj.param_value @partition_size : index
    %step = tj.param_value @partitions_per_step : index
    %head_size = tj.param_value @head_size : index
    %num_seqs = tj.shape_symbol "num_seqs" : index
    %num_q_heads = tj.shape_symbol "num_q_heads" : index
    %max_partitions = tj.shape_symbol "max_partitions" : index
    %c0 = arith.constant 0 : index
    %len_i32 = tj.load_scalar %seq_lens[%seq] : !tj.view<[num_seqs], i32> -> i32
    %seq_len = arith.index_cast %len_i32 : i32 to index
    %used = arith.ceildivsi %seq_len, %partition_size : index
    %partitions = arith.minsi %used, %max_partitions : index

    %c1 = arith.constant 1 : index
    %merge = arith.cmpi ne, %used, %c1 : index
    scf.if %merge {
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %zero_o = tj.full %zero [head_size] : f32 -> tensor<?xf32>
      %zero_w = tj.full %zero [partitions_per_step, head_size] : f32 -> tensor<?x?xf32>
      %m, %l, %acc = scf.for %p0 = %c0 to %partitions step %step
          iter_args(%m_i = %ninf, %l_i = %zero, %acc_i = %zero_o) -> (f32, f32, tensor<?xf32>) {
        // Partitions past the sequence's last read as LSE -inf (weight 0) and output 0.
        %lse_col = tj.load %partial_lse[%seq, %p0, %head] limits [%num_seqs, %partitions, %num_q_heads]
            other %ninf : f32 [partitions_per_step, 1]
            : !tj.view<[num_seqs, max_partitions, num_q_heads], f32> -> tensor<?x1xf32>
        %out_3d = tj.load %partial_out[%seq, %p0, %head, %c0]
            limits [%num_seqs, %partitions, %num_q_heads, %head_size] [partitions_per_step, 1, head_size]
            : !tj.view<[num_seqs, max_partitions, num_q_heads, head_size], f32> -> tensor<?x1x?xf32>
        %lse = tj.reshape %lse_col [partitions_per_step] : tensor<?x1xf32> -> tensor<?xf32>
        %outs = tj.reshape %out_3d [partitions_per_step, head_size] : tensor<?x1x?xf32> -> tensor<?x?xf32>
        // Online merge; while every LSE so far is -inf the shift is 0 and all weights are 0.
        %step_max = tj.reduce max %lse axis 0 : tensor<?xf32> -> f32
        %m_new = arith.maximumf %m_i, %step_max : f32
        %m_empty = arith.cmpf oeq, %m_new, %ninf : f32
        %shift = arith.select %m_empty, %zero, %m_new : f32
        %old_rel = arith.subf %m_i, %shift : f32
        %alpha = math.exp %old_rel : f32
        %shift_v = tj.full %shift [partitions_per_step] : f32 -> tensor<?xf32>
        %rel = arith.subf %lse, %shift_v : tensor<?xf32>
        %w = math.exp %rel : tensor<?xf32>
        %w_sum = tj.reduce sum %w axis 0 : tensor<?xf32> -> f32
        %l_scaled = arith.mulf %l_i, %alpha : f32
        %l_new = arith.addf %l_scaled, %w_sum : f32
        %w_col = tj.expand_dims %w axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %w_2d = tj.broadcast %w_col [partitions_per_step, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
        // A partition of weight 0 never contributes, whatever its workspace holds.
        %w_zero = arith.cmpf oeq, %w_2d, %zero_w : tensor<?x?xf32>
        %weighted = arith.mulf %outs, %w_2d : tensor<?x?xf32>
        %part = arith.select %w_zero, %zero_w, %weighted : tensor<?x?xi1>, tensor<?x?xf32>
        %step_sum = tj.reduce sum %part axis 0 : tensor<?x?xf32> -> tensor<?xf32>
        %alpha_v = tj.full %alpha [head_size] : f32 -> tensor<?xf32>
        %acc_scaled = arith.mulf %acc_i, %alpha_v : tensor<?xf32>
        %acc_new = arith.addf %acc_scaled, %step_sum : tensor<?xf32>
        scf.yield %m_new, %l_new, %acc_new : f32, f32, tensor<?xf32>
      }
      %l_zero = arith.cmpf oeq, %l, %zero : f32
      %divisor = arith.select %l_zero, %one, %l : f32
      %inverse = arith.divf %one, %divisor : f32
      %inverse_v = tj.full %inverse [head_size] : f32 -> tensor<?xf32>
      %merged = arith.mulf %acc, %inverse_v : tensor<?xf32>
      %merged_out = arith.truncf %merged : tensor<?xf32> to tensor<?x!tj.dtype<"dtype">>
      tj.store %merged_out, %output[%seq, %head, %c0] limits [%num_seqs, %num_q_heads, %head_size]
          : tensor<?x!tj.dtype<"dtype">>, !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
    }
  }
}
