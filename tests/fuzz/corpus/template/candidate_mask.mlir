// The DSA decode candidate mask (CONTEXT.md section 4): in each row of the indexer's logits,
// every column of [0, end) that is not a kept column of a candidate block becomes -inf.
// Within [0, end) the result is bitwise vLLM's shared apply_candidate_mask
// (vllm/model_executor/kernels/attention/dsa/candidate_blocks.py): column c is kept iff
// start <= c < min(end, width) and either block (c - start) / block_size is one of the row's
// candidates, or c is the last column (width - 1) and a candidate's first column start +
// b * block_size lies at or past width (its packed-column clamp). Negative candidates are
// padding. Rows share start/end in groups of row_repeat; candidates are per row.
//
// Unlike the shared kernel, columns at or past a row's end are never written, and the grid
// (rows, min(grid_cols, cdiv(width, tile))) comes from the width alone (static under graph
// capture): each program strides over the row's live tiles, the trip count read from `ends`
// in device memory, so the cost follows the live context, not the workspace width.
//
// Logits are 32-bit words: fp32 logits are passed as their int32 bit patterns (a
// reinterpretation, e.g. torch's .view(torch.int32)); a masked column gets 0xFF800000, fp32
// -inf. The view is [rows, width, 1] so that a strided column axis (stride 2 in a packed
// workspace) is the middle one; kept columns are stored back with their own bits.
tj.template @candidate_mask {
  tj.param @block_size : int range [1, 1024] default 64
  tj.param @row_repeat : int range [1, 64] default 1
  // 0: no starts (every start is 0, `starts` is not read); 1: per-row starts.
  tj.param @has_starts : int values [0, 1] default 0
  // Columns per program per step (T) and programs per row (G): the target's tuning.
  tj.param @tile : int values [128, 256, 512, 1024, 2048, 4096]
  tj.param @grid_cols : int range [1, 1024]
  tj.param @num_warps : int values [1, 2, 4, 8, 16]

  tj.launch grid {
    %rows = tj.shape_symbol "num_rows" : index
    %width = tj.shape_symbol "width" : index
    %tile = tj.param_value @tile : index
    %most = tj.param_value @grid_cols : index
    %tiles = arith.ceildivsi %width, %tile : index
    %cols = arith.minsi %most, %tiles : index
    %one = arith.constant 1 : index
    tj.yield %rows, %cols, %one : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @candidate_mask(
      %logits: !tj.view<[num_rows, width, 1], i32>,
      %starts: !tj.view<[num_bounds], i32>,
      %ends: !tj.view<[num_bounds], i32>,
      %candidates: !tj.view<[num_rows, num_candidates], i32>) {
    %row = tj.program_id 0 : index
    %column_program = tj.program_id 1 : index
    %programs = tj.num_programs 1 : index
    %tile = tj.param_value @tile : index
    %repeat = tj.param_value @row_repeat : index
    %has_starts = tj.param_value @has_starts : index
    %block_size = tj.param_value @block_size : index
    %rows = tj.shape_symbol "num_rows" : index
    %width = tj.shape_symbol "width" : index
    %num_candidates = tj.shape_symbol "num_candidates" : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %c1_i64 = arith.constant 1 : i64
    %none = arith.constant false
    %ninf_bits = arith.constant -8388608 : i32

    %bound = arith.divsi %row, %repeat : index
    %end_i32 = tj.load_scalar %ends[%bound] : !tj.view<[num_bounds], i32> -> i32
    %read_starts = arith.cmpi ne, %has_starts, %c0 : index
    %start_i32 = scf.if %read_starts -> (i32) {
      %s = tj.load_scalar %starts[%bound] : !tj.view<[num_bounds], i32> -> i32
      scf.yield %s : i32
    } else {
      scf.yield %c0_i32 : i32
    }
    %end = arith.index_cast %end_i32 : i32 to index
    %live = arith.minsi %end, %width : index
    %start = arith.extsi %start_i32 : i32 to i64
    %width_i64 = arith.index_cast %width : index to i64
    %block_i64 = arith.index_cast %block_size : index to i64
    %last_col = arith.subi %width_i64, %c1_i64 : i64
    %start_t = tj.full %start [tile, 1] : i64 -> tensor<?x1xi64>
    %block_t = tj.full %block_i64 [tile, 1] : i64 -> tensor<?x1xi64>
    %last_t = tj.full %last_col [tile, 1] : i64 -> tensor<?x1xi64>
    %ninf_t = tj.full %ninf_bits [tile, 1] : i32 -> tensor<?x1xi32>
    %none_t = tj.full %none [tile, 1] : i1 -> tensor<?x1xi1>

    // Program p takes tiles p, p + G, p + 2G, ... that start before the row's live end.
    %first = arith.muli %column_program, %tile : index
    %step = arith.muli %programs, %tile : index
    scf.for %t = %first to %live step %step {
      %t_i64 = arith.index_cast %t : index to i64
      %cols = tj.range %t_i64 [tile, 1] axis 0 : i64 -> tensor<?x1xi64>
      %from_start = arith.subi %cols, %start_t : tensor<?x1xi64>
      %blocks = arith.divsi %from_start, %block_t : tensor<?x1xi64>
      %past_start = arith.cmpi sge, %cols, %start_t : tensor<?x1xi64>
      %is_last = arith.cmpi eq, %cols, %last_t : tensor<?x1xi64>
      // Which columns' blocks are candidates, and whether a candidate is clamped to the edge.
      %hits, %edge = scf.for %k = %c0 to %num_candidates step %c1
          iter_args(%acc = %none_t, %clamped = %none) -> (tensor<?x1xi1>, i1) {
        %b_i32 = tj.load_scalar %candidates[%row, %k] : !tj.view<[num_rows, num_candidates], i32> -> i32
        %b = arith.extsi %b_i32 : i32 to i64
        %b_t = tj.full %b [tile, 1] : i64 -> tensor<?x1xi64>
        %hit = arith.cmpi eq, %blocks, %b_t : tensor<?x1xi64>
        %acc_next = arith.ori %acc, %hit : tensor<?x1xi1>
        %offset = arith.muli %b, %block_i64 : i64
        %first_col = arith.addi %start, %offset : i64
        %beyond = arith.cmpi sge, %first_col, %width_i64 : i64
        %clamped_next = arith.ori %clamped, %beyond : i1
        scf.yield %acc_next, %clamped_next : tensor<?x1xi1>, i1
      }
      %edge_t = tj.full %edge [tile, 1] : i1 -> tensor<?x1xi1>
      %edge_keep = arith.andi %is_last, %edge_t : tensor<?x1xi1>
      %candidate = arith.ori %hits, %edge_keep : tensor<?x1xi1>
      %keep = arith.andi %past_start, %candidate : tensor<?x1xi1>
      %old = tj.load %logits[%row, %t, %c0] limits [%rows, %live, %c1] [tile, 1]
          : !tj.view<[num_rows, width, 1], i32> -> tensor<?x1xi32>
      %masked = arith.select %keep, %old, %ninf_t : tensor<?x1xi1>, tensor<?x1xi32>
      tj.store %masked, %logits[%row, %t, %c0] limits [%rows, %live, %c1]
          : tensor<?x1xi32>, !tj.view<[num_rows, width, 1], i32>
    }
  }
}
