// Second half of paged decode: merges the partitions' partial outputs by their LSEs,
// `heads_per_program` q heads per program. Only partitions that hold tokens of the sequence are
// read (cdiv(seq_len, partition_size) of them, at most max_partitions: a longer context is
// cut there; the rest of the workspace never is); a sequence of one partition is skipped:
// paged_decode wrote its output. A workspace of one partition makes an empty grid (paged_decode
// writes every output there, the empty sequences' too). The partitions are taken
// `partitions_per_step` at a time in one load each for outputs and LSEs, so a program waits for
// memory once per step rather than once per partition (small batches at long context are
// latency-bound here), merged online as the split-K kernel merges tiles. A sequence of length 0
// gets 0. Where kernels may overlap (sm_90+), it reads seq_lens before the previous kernel on
// the stream has finished: launch it after one that does not write them (paged_decode).
tj.template @paged_decode_reduce {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @head_size : int values [64, 80, 96, 112, 128, 192, 256] default 128
  tj.param @partition_size : int range [16, 65536]
  tj.param @partitions_per_step : int values [1, 2, 4, 8, 16, 32]
  // One head per program spreads small batches over the GPU; large grids merge several
  // heads per program (fewer programs, longer contiguous reads).
  tj.param @heads_per_program : int values [1, 2, 4, 8, 16] default 1
  tj.param @num_warps : int values [1, 2, 4, 8]
  // Occupancy hint (programs resident per SM; 0 = none): caps registers per thread.
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  tj.launch grid {
    %seqs = tj.shape_symbol "num_seqs" : index
    %q_heads = tj.shape_symbol "num_q_heads" : index
    %per_program = tj.param_value @heads_per_program : index
    %head_groups = arith.ceildivsi %q_heads, %per_program : index
    %one = arith.constant 1 : index
    // No programs where the workspace has one partition: paged_decode wrote every output
    // there, and an empty grid is not launched at all (a launch that only skipped every
    // sequence cost 1.3 us of 25: bench/results/2026-12-01/s10-merge).
    %zero = arith.constant 0 : index
    %workspace_partitions = tj.shape_symbol "max_partitions" : index
    %beyond_first = arith.subi %workspace_partitions, %one : index
    %capped = arith.minsi %beyond_first, %one : index
    %merges = arith.maxsi %capped, %zero : index
    %programs_x = arith.muli %seqs, %merges : index
    tj.yield %programs_x, %head_groups, %one : index, index, index
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
    // that kernel writes before its partials are all written. The sequence's length it does
    // not write: read before the wait, the length is there when the wait ends.
    %seq = tj.program_id 0 : index
    %len_i32 = tj.load_scalar %seq_lens[%seq] : !tj.view<[num_seqs], i32> -> i32
    tj.wait_previous_kernel ready(%seq_lens : !tj.view<[num_seqs], i32>)
    %head_group = tj.program_id 1 : index
    %per_program = tj.param_value @heads_per_program : index
    %head0 = arith.muli %head_group, %per_program : index
    %partition_size = tj.param_value @partition_size : index
    %step = tj.param_value @partitions_per_step : index
    %head_size = tj.param_value @head_size : index
    %num_seqs = tj.shape_symbol "num_seqs" : index
    %num_q_heads = tj.shape_symbol "num_q_heads" : index
    %max_partitions = tj.shape_symbol "max_partitions" : index
    %c0 = arith.constant 0 : index
    %seq_len = arith.index_cast %len_i32 : i32 to index
    %used = arith.ceildivsi %seq_len, %partition_size : index
    %partitions = arith.minsi %used, %max_partitions : index

    %c1 = arith.constant 1 : index
    %merge = arith.cmpi ne, %used, %c1 : index
    scf.if %merge {
      %zero = arith.constant 0.0 : f32
      %one = arith.constant 1.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %zero_h = tj.full %zero [heads_per_program] : f32 -> tensor<?xf32>
      %one_h = tj.full %one [heads_per_program] : f32 -> tensor<?xf32>
      %ninf_h = tj.full %ninf [heads_per_program] : f32 -> tensor<?xf32>
      %zero_o = tj.full %zero [heads_per_program, head_size] : f32 -> tensor<?x?xf32>
      %zero_w = tj.full %zero [partitions_per_step, heads_per_program, head_size] : f32 -> tensor<?x?x?xf32>
      %m, %l, %acc = scf.for %p0 = %c0 to %partitions step %step
          iter_args(%m_i = %ninf_h, %l_i = %zero_h, %acc_i = %zero_o)
          -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
        // Partitions past the sequence's last read as LSE -inf (weight 0) and output 0.
        %lse = tj.load %partial_lse[%seq, %p0, %head0] limits [%num_seqs, %partitions, %num_q_heads]
            other %ninf : f32 [partitions_per_step, heads_per_program]
            : !tj.view<[num_seqs, max_partitions, num_q_heads], f32> -> tensor<?x?xf32>
        %outs = tj.load %partial_out[%seq, %p0, %head0, %c0]
            limits [%num_seqs, %partitions, %num_q_heads, %head_size]
            [partitions_per_step, heads_per_program, head_size]
            : !tj.view<[num_seqs, max_partitions, num_q_heads, head_size], f32> -> tensor<?x?x?xf32>
        // Online merge; while every LSE so far is -inf the shift is 0 and all weights are 0.
        %step_max = tj.reduce max %lse axis 0 : tensor<?x?xf32> -> tensor<?xf32>
        %m_new = arith.maximumf %m_i, %step_max : tensor<?xf32>
        %m_empty = arith.cmpf oeq, %m_new, %ninf_h : tensor<?xf32>
        %shift = arith.select %m_empty, %zero_h, %m_new : tensor<?xi1>, tensor<?xf32>
        %old_rel = arith.subf %m_i, %shift : tensor<?xf32>
        %alpha = math.exp %old_rel : tensor<?xf32>
        %shift_row = tj.expand_dims %shift axis 0 : tensor<?xf32> -> tensor<1x?xf32>
        %shift_2d = tj.broadcast %shift_row [partitions_per_step, heads_per_program]
            : tensor<1x?xf32> -> tensor<?x?xf32>
        %rel = arith.subf %lse, %shift_2d : tensor<?x?xf32>
        %w = math.exp %rel : tensor<?x?xf32>
        %w_sum = tj.reduce sum %w axis 0 : tensor<?x?xf32> -> tensor<?xf32>
        %l_scaled = arith.mulf %l_i, %alpha : tensor<?xf32>
        %l_new = arith.addf %l_scaled, %w_sum : tensor<?xf32>
        %w_col = tj.expand_dims %w axis 2 : tensor<?x?xf32> -> tensor<?x?x1xf32>
        %w_3d = tj.broadcast %w_col [partitions_per_step, heads_per_program, head_size]
            : tensor<?x?x1xf32> -> tensor<?x?x?xf32>
        // A partition of weight 0 never contributes, whatever its workspace holds.
        %w_zero = arith.cmpf oeq, %w_3d, %zero_w : tensor<?x?x?xf32>
        %weighted = arith.mulf %outs, %w_3d : tensor<?x?x?xf32>
        %part = arith.select %w_zero, %zero_w, %weighted : tensor<?x?x?xi1>, tensor<?x?x?xf32>
        %step_sum = tj.reduce sum %part axis 0 : tensor<?x?x?xf32> -> tensor<?x?xf32>
        %alpha_col = tj.expand_dims %alpha axis 1 : tensor<?xf32> -> tensor<?x1xf32>
        %alpha_2d = tj.broadcast %alpha_col [heads_per_program, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
        %acc_scaled = arith.mulf %acc_i, %alpha_2d : tensor<?x?xf32>
        %acc_new = arith.addf %acc_scaled, %step_sum : tensor<?x?xf32>
        scf.yield %m_new, %l_new, %acc_new : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
      }
      %l_zero = arith.cmpf oeq, %l, %zero_h : tensor<?xf32>
      %divisor = arith.select %l_zero, %one_h, %l : tensor<?xi1>, tensor<?xf32>
      %inverse = arith.divf %one_h, %divisor : tensor<?xf32>
      %inverse_col = tj.expand_dims %inverse axis 1 : tensor<?xf32> -> tensor<?x1xf32>
      %inverse_2d = tj.broadcast %inverse_col [heads_per_program, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
      %merged = arith.mulf %acc, %inverse_2d : tensor<?x?xf32>
      %merged_out = arith.truncf %merged : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
      tj.store %merged_out, %output[%seq, %head0, %c0] limits [%num_seqs, %num_q_heads, %head_size]
          : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
    }
  }
}
