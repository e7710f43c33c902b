// Paged decode attention, split-K: one query token per sequence; K/V gathered from a paged
// cache through the block table; the context split into partitions of `partition_size`
// tokens so small batches at long context still fill the GPU (grid: seqs x kv heads x
// partitions, from shapes only; `grid_order` picks which of the first two varies fastest).
// The q heads of one GQA group share every K/V load and form the M dimension of both dots;
// a group larger than q_rows (MQA: 48, 71, 128 q heads on one kv head) is split into
// ceil(gqa_ratio / q_rows) row blocks, one program each, over the same K/V (the second grid
// dimension counts kv heads x row blocks): the blocks' reads of a tile meet in L2.
// Each program writes the group's partial output and LSE of its partition, and
// paged_decode_reduce merges them - or, with merge_in_kernel, the last program of the
// (sequence, kv head) to finish does (tj.arrive), or, with cluster_size > 1 (sm_90), the
// partitions' programs run as one thread-block cluster and merge through each other's shared
// memory (tj.cluster_merge_store); a sequence that fits in one partition gets
// its output written here and the merge skips it. A grid of one partition (max_partitions 1:
// every context up to max_model_len fits) writes every output here, zeros for empty
// sequences too, so the merge need not be launched at all. Values past a sequence's end are
// never read: paged_load masks those rows, and their logits are -inf.
tj.template @paged_decode {
  tj.param @dtype : type values [f16, bf16] default bf16
  // The caches' element type: dtype itself, or fp8 (e4m3fn, e5m2) read as code x scale, the
  // scale one per tensor (k_scales / v_scales of one element) or one per kv head
  // ([num_kv_heads]). The codes widen to dtype exactly; K's scale joins the logit scale and
  // V's the output's normalization (per program constants), so no tile is multiplied.
  tj.param @kv_dtype : type values [f16, bf16, f8E4M3FN, f8E5M2] default bf16
  tj.param @kv_scale : string values ["per_tensor", "per_head"] default "per_tensor"
  tj.param @head_size : int values [64, 80, 96, 112, 128, 192, 256] default 128
  tj.param @block_size : int values [1, 8, 16, 32, 64, 128, 256] default 16
  tj.param @gqa_ratio : int range [1, 128] default 1
  tj.param @kv_layout : string values ["standard", "shuffled"] default "standard"
  // Rows of the q tile: the group padded to the matrix instruction's M, or one row block of
  // a larger group (the targets' q_rows, 16 on sm_90, is measured on groups of 16 or less;
  // for split groups it is not measured yet - the decode suite's MQA cells compare 16 and 32).
  tj.param @q_rows : int values [1, 2, 4, 8, 16, 32]
  tj.param @block_n : int values [16, 32, 64, 128]
  // Any multiple of block_n (a measured table picks powers of two; a grid that is known can
  // take a size that splits it into whole waves of programs).
  tj.param @partition_size : int range [16, 65536]
  tj.param @num_warps : int values [1, 2, 4, 8]
  // K/V tiles in flight ahead of the one in use (tj-deepen-loop-prefetch): more bytes in
  // flight per program, at one more tile of shared memory per chain and step.
  tj.param @prefetch_depth : int range [1, 3] default 1
  // Occupancy hint (programs resident per SM; 0 = none): caps registers per thread.
  tj.param @min_blocks_per_sm : int range [0, 32] default 0
  // Which of (sequence, kv head) varies fastest in launch order: with heads first, the
  // programs that read the heads of one cache block run at the same time.
  tj.param @grid_order : string values ["seqs_first", "heads_first"] default "seqs_first"
  // 1: the last program of a (sequence, kv head) to finish merges the partitions' partials
  // itself (tj.arrive on `arrivals`, which must start zeroed; the merge resets it), so
  // paged_decode_reduce is not launched: one kernel instead of two, for small grids.
  tj.param @merge_in_kernel : int values [0, 1] default 0
  // > 1 (reserved: targets with thread-block clusters): the partitions of a (sequence, kv
  // head) run as one cluster of this many programs and merge through each other's shared
  // memory (tj.cluster_merge_store); no merge kernel, no partials in global memory. The grid
  // must have exactly this many partitions (PagedDecode sizes them so).
  tj.param @cluster_size : int range [1, 8] default 1
  tj.param @soft_cap : int values [0, 1] default 0
  tj.param @alibi : int values [0, 1] default 0
  // 1: one learned logit per q head (`sinks`, f32, natural units, neither scaled, capped nor
  // biased) joins every row's softmax denominator and contributes no value. Only partition 0
  // counts it (its partial's LSE carries it), so each merge sees it exactly once.
  tj.param @sinks : int values [0, 1] default 0

  tj.constraint "merge_in_kernel counts one program per partition of a (sequence, kv head): it needs the whole GQA group in one program (q_rows >= gqa_ratio)" {
    %rows = tj.param_value @q_rows : index
    %ratio = tj.param_value @gqa_ratio : index
    %whole = arith.cmpi sge, %rows, %ratio : index
    %in_kernel = tj.param_value @merge_in_kernel : index
    %c0 = arith.constant 0 : index
    %no_arrivals = arith.cmpi eq, %in_kernel, %c0 : index
    %ok = arith.ori %whole, %no_arrivals : i1
    tj.yield %ok : i1
  }
  tj.constraint "kv_dtype must be dtype or an fp8 type (f8E4M3FN, f8E5M2)" {
    %e4m3 = tj.param_equals @kv_dtype, f8E4M3FN
    %e5m2 = tj.param_equals @kv_dtype, f8E5M2
    %fp8 = arith.ori %e4m3, %e5m2 : i1
    %kv_bf16 = tj.param_equals @kv_dtype, bf16
    %q_bf16 = tj.param_equals @dtype, bf16
    %kv_f16 = tj.param_equals @kv_dtype, f16
    %q_f16 = tj.param_equals @dtype, f16
    %both_bf16 = arith.andi %kv_bf16, %q_bf16 : i1
    %both_f16 = arith.andi %kv_f16, %q_f16 : i1
    %same = arith.ori %both_bf16, %both_f16 : i1
    %ok = arith.ori %fp8, %same : i1
    tj.yield %ok : i1
  }
  tj.constraint "the shuffled layout holds 16-bit caches: an fp8 kv_dtype needs kv_layout standard" {
    %e4m3 = tj.param_equals @kv_dtype, f8E4M3FN
    %e5m2 = tj.param_equals @kv_dtype, f8E5M2
    %fp8 = arith.ori %e4m3, %e5m2 : i1
    %shuffled = tj.param_equals @kv_layout, "shuffled"
    %both = arith.andi %fp8, %shuffled : i1
    %true = arith.constant true
    %ok = arith.xori %both, %true : i1
    tj.yield %ok : i1
  }
  tj.constraint "partition_size must be a multiple of block_n" {
    %p = tj.param_value @partition_size : index
    %n = tj.param_value @block_n : index
    %r = arith.remsi %p, %n : index
    %c0 = arith.constant 0 : index
    %ok = arith.cmpi eq, %r, %c0 : index
    tj.yield %ok : i1
  }
  tj.constraint "merge_in_kernel and cluster_size > 1 are two ways to merge: pick one" {
    %in_kernel = tj.param_value @merge_in_kernel : index
    %cluster = tj.param_value @cluster_size : index
    %c1 = arith.constant 1 : index
    %clustered = arith.cmpi sgt, %cluster, %c1 : index
    %c0 = arith.constant 0 : index
    %no_arrivals = arith.cmpi eq, %in_kernel, %c0 : index
    %true = arith.constant true
    %plain = arith.xori %clustered, %true : i1
    %ok = arith.ori %plain, %no_arrivals : i1
    tj.yield %ok : i1
  }
  tj.constraint "the shuffled layout needs block_size to be a multiple of 8" {
    %shuffled = tj.param_equals @kv_layout, "shuffled"
    %block = tj.param_value @block_size : index
    %eight = arith.constant 8 : index
    %rem = arith.remsi %block, %eight : index
    %zero = arith.constant 0 : index
    %aligned = arith.cmpi eq, %rem, %zero : index
    %true = arith.constant true
    %standard = arith.xori %shuffled, %true : i1
    %ok = arith.ori %standard, %aligned : i1
    tj.yield %ok : i1
  }

  tj.launch grid {
    %seqs = tj.shape_symbol "num_seqs" : index
    %kv_heads = tj.shape_symbol "num_kv_heads" : index
    %partitions = tj.shape_symbol "max_partitions" : index
    %group = tj.param_value @gqa_ratio : index
    %rows = tj.param_value @q_rows : index
    %row_blocks = arith.ceildivsi %group, %rows : index
    %groups = arith.muli %kv_heads, %row_blocks : index
    %heads_first = tj.param_equals @grid_order, "heads_first"
    %x = arith.select %heads_first, %groups, %seqs : index
    %y = arith.select %heads_first, %seqs, %groups : index
    tj.yield %x, %y, %partitions : index, index, index
  } threads {
    %warps = tj.param_value @num_warps : index
    %warp_size = tj.target_value "warp_size" : index
    %threads = arith.muli %warps, %warp_size : index
    tj.yield %threads : index
  }

  tj.kernel @paged_decode(
      %output: !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>,
      %partial_out: !tj.view<[num_seqs, max_partitions, num_q_heads, head_size], f32>,
      %partial_lse: !tj.view<[num_seqs, max_partitions, num_q_heads], f32>,
      %query: !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>,
      %key_cache: !tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>,
      %value_cache: !tj.kv_cache<v, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>,
      %block_tables: !tj.view<[num_seqs, max_blocks_per_seq], i32>,
      %seq_lens: !tj.view<[num_seqs], i32>,
      %alibi_slopes: !tj.view<[num_q_heads], f32>,
      %sinks: !tj.view<[num_q_heads], f32>,
      %k_scales: !tj.view<[num_kv_scales], f32>,
      %v_scales: !tj.view<[num_kv_scales], f32>,
      %arrivals: !tj.view<[num_seqs, num_kv_heads], i32>,
      %scale: f32, %soft_cap_value: f32, %sliding_window: i32) {
    // The merge kernel, if any, may be placed as soon as every program here has started (it
    // waits for our partials itself): its launch overlaps this kernel instead of following it.
    tj.start_next_kernel
    %program_x = tj.program_id 0 : index
    %program_y = tj.program_id 1 : index
    %heads_first = tj.param_equals @grid_order, "heads_first"
    %seq = arith.select %heads_first, %program_y, %program_x : index
    %row_program = arith.select %heads_first, %program_x, %program_y : index
    %partition = tj.program_id 2 : index
    %ratio = tj.param_value @gqa_ratio : index
    // The program's kv head and its block of the group's rows (one block unless the group is
    // larger than q_rows: then the divisions are by a constant 1 and fold away).
    %q_rows = tj.param_value @q_rows : index
    %row_blocks = arith.ceildivsi %ratio, %q_rows : index
    %kv_head = arith.divsi %row_program, %row_blocks : index
    %row_block = arith.remsi %row_program, %row_blocks : index
    %block_rows = arith.muli %row_block, %q_rows : index
    %partition_size = tj.param_value @partition_size : index
    %block_n = tj.param_value @block_n : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %start = arith.muli %partition, %partition_size : index
    // The partition's block-table entries are on their way to L2 while the sequence's length
    // is: the first K/V copies need both, and a table read issued only once the length is
    // known would be a second trip to memory before any K/V byte moves.
    %block_size = tj.param_value @block_size : index
    %first_block = arith.divsi %start, %block_size : index
    %partition_blocks = arith.ceildivsi %partition_size, %block_size : index
    %table_entries = arith.addi %partition_blocks, %c1 : index
    tj.prefetch %block_tables[%seq, %first_block] count %table_entries
        : !tj.view<[num_seqs, max_blocks_per_seq], i32>
    %len_i32 = tj.load_scalar %seq_lens[%seq] : !tj.view<[num_seqs], i32> -> i32
    %seq_len = arith.index_cast %len_i32 : i32 to index
    %has_tokens = arith.cmpi slt, %start, %seq_len : index
    %group0 = arith.muli %kv_head, %ratio : index
    %head0 = arith.addi %group0, %block_rows : index
    %group_end = arith.addi %group0, %ratio : index
    %split = arith.cmpi sgt, %ratio, %q_rows : index
    %block_end = arith.addi %head0, %q_rows : index
    %split_end = arith.minsi %block_end, %group_end : index
    %head_end = arith.select %split, %split_end, %group_end : index
    %num_seqs = tj.shape_symbol "num_seqs" : index
    %max_partitions = tj.shape_symbol "max_partitions" : index
    %head_size = tj.param_value @head_size : index
    %merge_here = tj.param_value @merge_in_kernel : i1
    // A sequence of no token has output 0; the merge kernel writes it, or where there is none
    // (merge_in_kernel, or a grid of one partition) the first partition's program does, down
    // the same path as any other: no token is read, the sums stay 0, and the output 0. (A
    // branch of its own would hold a [q_rows, head_size] tile of zeros in shared memory,
    // 16 KB at head 256: one program less per SM.)
    %first_partition = arith.cmpi eq, %partition, %c0 : index
    %no_token = arith.cmpi sle, %seq_len, %c0 : index
    %first_of_none = arith.andi %first_partition, %no_token : i1
    %one_partition = arith.cmpi eq, %max_partitions, %c1 : index
    %cluster_size = tj.param_value @cluster_size : index
    %clustered = arith.cmpi sgt, %cluster_size, %c1 : index
    %merged_here = arith.ori %merge_here, %clustered : i1
    %no_merge_kernel = arith.ori %merged_here, %one_partition : i1
    %writes_zeros = arith.andi %no_merge_kernel, %first_of_none : i1
    // In a cluster every program of a sequence of several partitions (those that hold
    // tokens, below) takes part in the merge, tokens or not: one that exited would leave its
    // partners waiting, or reading shared memory that is gone.
    %needed_here = arith.ceildivsi %seq_len, %partition_size : index
    %used_here = arith.minsi %needed_here, %max_partitions : index
    %several = arith.cmpi sgt, %used_here, %c1 : index
    %cluster_merges = arith.andi %clustered, %several : i1
    %works = arith.ori %has_tokens, %writes_zeros : i1
    %active = arith.ori %works, %cluster_merges : i1
    scf.if %active {
      %past_partition = arith.addi %start, %partition_size : index
      %end = arith.minsi %past_partition, %seq_len : index
      // Sliding window: only the last `sliding_window` tokens (0 = all).
      %window = arith.index_cast %sliding_window : i32 to index
      %has_window = arith.cmpi sgt, %window, %c0 : index
      %window_start_raw = arith.subi %seq_len, %window : index
      %window_start_pos = arith.maxsi %window_start_raw, %c0 : index
      %window_start = arith.select %has_window, %window_start_pos, %c0 : index

      %q = tj.load %query[%seq, %head0, %c0] limits [%num_seqs, %head_end, %head_size] [q_rows, head_size]
          : !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
      %zero = arith.constant 0.0 : f32
      %ninf = arith.constant 0xFF800000 : f32
      %m0 = tj.full %ninf [q_rows] : f32 -> tensor<?xf32>
      %acc0 = tj.full %zero [q_rows, head_size] : f32 -> tensor<?x?xf32>
      %zero_s = tj.full %zero [q_rows, block_n] : f32 -> tensor<?x?xf32>
      %l_cols0 = tj.full %zero [q_rows, block_n] : f32 -> tensor<?x?xf32>
      %ninf_s = tj.full %ninf [q_rows, block_n] : f32 -> tensor<?x?xf32>
      // The logits are kept in base 2: scale, soft cap and ALiBi slopes times log2(e), once, so
      // that the softmax's exponentials are exp2 of a difference (no multiply per element).
      %log2e = arith.constant 1.44269504 : f32
      // An fp8 cache's scales, this kv head's (or the tensor's); 1 for a 16-bit cache.
      %e4m3 = tj.param_equals @kv_dtype, f8E4M3FN
      %e5m2 = tj.param_equals @kv_dtype, f8E5M2
      %fp8 = arith.ori %e4m3, %e5m2 : i1
      %k_dequant, %v_dequant = scf.if %fp8 -> (f32, f32) {
        %per_head = tj.param_equals @kv_scale, "per_head"
        %scale_at = arith.select %per_head, %kv_head, %c0 : index
        %k_s = tj.load_scalar %k_scales[%scale_at] : !tj.view<[num_kv_scales], f32> -> f32
        %v_s = tj.load_scalar %v_scales[%scale_at] : !tj.view<[num_kv_scales], f32> -> f32
        scf.yield %k_s, %v_s : f32, f32
      } else {
        %unscaled = arith.constant 1.0 : f32
        scf.yield %unscaled, %unscaled : f32, f32
      }
      %scale_k = arith.mulf %scale, %k_dequant : f32
      %scale2 = arith.mulf %scale_k, %log2e : f32
      %scale_s = tj.full %scale2 [q_rows, block_n] : f32 -> tensor<?x?xf32>
      %soft_cap2 = arith.mulf %soft_cap_value, %log2e : f32
      %zero_r = tj.full %zero [q_rows] : f32 -> tensor<?xf32>
      %ninf_r = tj.full %ninf [q_rows] : f32 -> tensor<?xf32>
      %slopes = tj.load %alibi_slopes[%head0] limits [%head_end] [q_rows]
          : !tj.view<[num_q_heads], f32> -> tensor<?xf32>
      %log2e_r = tj.full %log2e [q_rows] : f32 -> tensor<?xf32>
      %slopes2 = arith.mulf %slopes, %log2e_r : tensor<?xf32>
      // Column index of every logit, built once, in the logits' own layout.
      %c0_i32 = arith.constant 0 : i32
      %columns_2d = tj.range %c0_i32 [q_rows, block_n] axis 1 : i32 -> tensor<?x?xi32>
      %last = arith.subi %seq_len, %c1 : index
      %first_token = arith.maxsi %start, %window_start : index

      // K/V of the first tile; each iteration fetches the next tile's before its own math, so
      // the copy overlaps the dots and the softmax. On GPU targets the placement pass puts these
      // tiles (they only feed dots) in shared memory, filled asynchronously: no registers held.
      %k_first = tj.paged_load %key_cache, %block_tables[%seq] tokens %start limit %end head %kv_head [block_n, head_size]
          : !tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>, !tj.view<[num_seqs, max_blocks_per_seq], i32> -> tensor<?x?x!tj.dtype<"kv_dtype", 0>>
      %v_first = tj.paged_load %value_cache, %block_tables[%seq] tokens %start limit %end head %kv_head [block_n, head_size]
          : !tj.kv_cache<v, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>, !tj.view<[num_seqs, max_blocks_per_seq], i32> -> tensor<?x?x!tj.dtype<"kv_dtype", 0>>

      // The row sums are carried per column (l_cols) and summed once after the loop: a row
      // reduction per tile is a cross-warp exchange (a barrier in the tile's chain), and
      // scaled by the same alpha every tile, the columns sum to the same l.
      %m_tokens, %l_cols, %acc_tokens, %k_past, %v_past = scf.for %t0 = %start to %end step %block_n
          iter_args(%m_i = %m0, %l_i = %l_cols0, %acc_i = %acc0, %k = %k_first, %v = %v_first)
          -> (tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!tj.dtype<"kv_dtype", 0>>, tensor<?x?x!tj.dtype<"kv_dtype", 0>>) {
        // The next tile (all rows masked past the partition's end: nothing is read there).
        %t_next = arith.addi %t0, %block_n : index
        %k_next = tj.paged_load %key_cache, %block_tables[%seq] tokens %t_next limit %end head %kv_head [block_n, head_size]
            : !tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>, !tj.view<[num_seqs, max_blocks_per_seq], i32> -> tensor<?x?x!tj.dtype<"kv_dtype", 0>>
        // The cache's codes as dtype (exact for fp8; for a 16-bit cache the pair folds away).
        %k_wide = arith.extf %k : tensor<?x?x!tj.dtype<"kv_dtype", 0>> to tensor<?x?xf32>
        %k_dot = arith.truncf %k_wide : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
        %qk = tj.dot %q, %k_dot, %zero_s {trans_b}
            : tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?xf32> -> tensor<?x?xf32>
        // V's next tile after the first dot: its slot was read by the previous tile's second
        // dot, and the first dot's wait is the barrier that frees it.
        %v_next = tj.paged_load %value_cache, %block_tables[%seq] tokens %t_next limit %end head %kv_head [block_n, head_size]
            : !tj.kv_cache<v, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>, !tj.view<[num_seqs, max_blocks_per_seq], i32> -> tensor<?x?x!tj.dtype<"kv_dtype", 0>>
        %scaled = arith.mulf %qk, %scale_s : tensor<?x?xf32>
        // Optional logit soft-cap: cap * tanh(s / cap) (s and cap in base 2 alike).
        %soft_cap_on = tj.param_value @soft_cap : i1
        %capped = scf.if %soft_cap_on -> tensor<?x?xf32> {
          %cap = tj.full %soft_cap2 [q_rows, block_n] : f32 -> tensor<?x?xf32>
          %ratio_s = arith.divf %scaled, %cap : tensor<?x?xf32>
          %tanh = math.tanh %ratio_s : tensor<?x?xf32>
          %out = arith.mulf %tanh, %cap : tensor<?x?xf32>
          scf.yield %out : tensor<?x?xf32>
        } else {
          scf.yield %scaled : tensor<?x?xf32>
        }
        // Token positions of this tile; ALiBi adds slope * (position - last position).
        %t0_i32 = arith.index_cast %t0 : index to i32
        %t0_2d = tj.full %t0_i32 [q_rows, block_n] : i32 -> tensor<?x?xi32>
        %positions_2d = arith.addi %columns_2d, %t0_2d : tensor<?x?xi32>
        %alibi_on = tj.param_value @alibi : i1
        %biased = scf.if %alibi_on -> tensor<?x?xf32> {
          %last_i32 = arith.index_cast %last : index to i32
          %last_2d = tj.full %last_i32 [q_rows, block_n] : i32 -> tensor<?x?xi32>
          %distance = arith.subi %positions_2d, %last_2d : tensor<?x?xi32>
          %distance_f = arith.sitofp %distance : tensor<?x?xi32> to tensor<?x?xf32>
          %slope_col = tj.expand_dims %slopes2 axis 1 : tensor<?xf32> -> tensor<?x1xf32>
          %slope_2d = tj.broadcast %slope_col [q_rows, block_n] : tensor<?x1xf32> -> tensor<?x?xf32>
          %bias = arith.mulf %slope_2d, %distance_f : tensor<?x?xf32>
          %with_bias = arith.addf %capped, %bias : tensor<?x?xf32>
          scf.yield %with_bias : tensor<?x?xf32>
        } else {
          scf.yield %capped : tensor<?x?xf32>
        }
        // Tokens past the end (and before the window) get -inf: they weigh exactly 0. Only the
        // tiles that straddle either edge need the mask.
        %tile_end = arith.addi %t0, %block_n : index
        %straddles_end = arith.cmpi sgt, %tile_end, %end : index
        %straddles_first = arith.cmpi slt, %t0, %first_token : index
        %needs_mask = arith.ori %straddles_end, %straddles_first : i1
        %logits = scf.if %needs_mask -> tensor<?x?xf32> {
          %end_i32 = arith.index_cast %end : index to i32
          %first_i32 = arith.index_cast %first_token : index to i32
          %end_2d = tj.full %end_i32 [q_rows, block_n] : i32 -> tensor<?x?xi32>
          %first_2d = tj.full %first_i32 [q_rows, block_n] : i32 -> tensor<?x?xi32>
          %before_end = arith.cmpi slt, %positions_2d, %end_2d : tensor<?x?xi32>
          %after_first = arith.cmpi sge, %positions_2d, %first_2d : tensor<?x?xi32>
          %valid = arith.andi %before_end, %after_first : tensor<?x?xi1>
          %masked = arith.select %valid, %biased, %ninf_s : tensor<?x?xi1>, tensor<?x?xf32>
          scf.yield %masked : tensor<?x?xf32>
        } else {
          scf.yield %biased : tensor<?x?xf32>
        }

        // Online softmax; a row with no valid token so far keeps m = -inf and shifts by 0.
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
        %v_wide = arith.extf %v : tensor<?x?x!tj.dtype<"kv_dtype", 0>> to tensor<?x?xf32>
        %v_dot = arith.truncf %v_wide : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
        %acc_new = tj.dot %p_low, %v_dot, %acc_scaled
            : tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>, tensor<?x?xf32> -> tensor<?x?xf32>
        scf.yield %m_new, %l_new, %acc_new, %k_next, %v_next
            : tensor<?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?x!tj.dtype<"kv_dtype", 0>>, tensor<?x?x!tj.dtype<"kv_dtype", 0>>
      } {tj.prefetch_depth = "prefetch_depth"}

      %l_tokens = tj.reduce sum %l_cols axis 1 : tensor<?x?xf32> -> tensor<?xf32>
      // The sink joins partition 0's sums as one more logit of value 0 (base 2, like m): the
      // rows' max moves to it where it is larger and the sums rescale, as a tile's would.
      %sinks_on = tj.param_value @sinks : i1
      %m, %l, %acc = scf.if %sinks_on -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
        %holds_sink = arith.cmpi eq, %partition, %c0 : index
        %with_sink:3 = scf.if %holds_sink -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
          %sink = tj.load %sinks[%head0] limits [%head_end] [q_rows]
              : !tj.view<[num_q_heads], f32> -> tensor<?xf32>
          %sink2 = arith.mulf %sink, %log2e_r : tensor<?xf32>
          %m_sink = arith.maximumf %m_tokens, %sink2 : tensor<?xf32>
          // Both -inf (no token, a sink of -inf): shift by 0, the sums stay 0.
          %m_sink_empty = arith.cmpf oeq, %m_sink, %ninf_r : tensor<?xf32>
          %shift_sink = arith.select %m_sink_empty, %zero_r, %m_sink : tensor<?xi1>, tensor<?xf32>
          %tokens_rel = arith.subf %m_tokens, %shift_sink : tensor<?xf32>
          %alpha_sink = math.exp2 %tokens_rel : tensor<?xf32>
          %sink_rel = arith.subf %sink2, %shift_sink : tensor<?xf32>
          %sink_p = math.exp2 %sink_rel : tensor<?xf32>
          %l_rescaled = arith.mulf %l_tokens, %alpha_sink : tensor<?xf32>
          %l_sink = arith.addf %l_rescaled, %sink_p : tensor<?xf32>
          %alpha_sink_col = tj.expand_dims %alpha_sink axis 1 : tensor<?xf32> -> tensor<?x1xf32>
          %alpha_sink_2d = tj.broadcast %alpha_sink_col [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
          %acc_sink = arith.mulf %acc_tokens, %alpha_sink_2d : tensor<?x?xf32>
          scf.yield %m_sink, %l_sink, %acc_sink : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
        } else {
          scf.yield %m_tokens, %l_tokens, %acc_tokens : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
        }
        scf.yield %with_sink#0, %with_sink#1, %with_sink#2 : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
      } else {
        scf.yield %m_tokens, %l_tokens, %acc_tokens : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
      }
      // Partial result of this partition: acc / l and lse = m + log(l); an empty one is 0, -inf.
      %l_zero = arith.cmpf oeq, %l, %zero_r : tensor<?xf32>
      %one = arith.constant 1.0 : f32
      %one_r = tj.full %one [q_rows] : f32 -> tensor<?xf32>
      %divisor = arith.select %l_zero, %one_r, %l : tensor<?xi1>, tensor<?xf32>
      // One division per row, then products (a division per element costs code and time).
      %inverse_tokens = arith.divf %one_r, %divisor : tensor<?xf32>
      // V's scale, once per row (not per element of the output).
      %inverse = scf.if %fp8 -> tensor<?xf32> {
        %v_scale_r = tj.full %v_dequant [q_rows] : f32 -> tensor<?xf32>
        %v_scaled = arith.mulf %inverse_tokens, %v_scale_r : tensor<?xf32>
        scf.yield %v_scaled : tensor<?xf32>
      } else {
        scf.yield %inverse_tokens : tensor<?xf32>
      }
      %inverse_col = tj.expand_dims %inverse axis 1 : tensor<?xf32> -> tensor<?x1xf32>
      %inverse_2d = tj.broadcast %inverse_col [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
      %normalized = arith.mulf %acc, %inverse_2d : tensor<?x?xf32>
      %log_l = math.log %divisor : tensor<?xf32>
      // m is in base 2; the LSE the merge reads is in natural units.
      %ln2 = arith.constant 0.693147182 : f32
      %ln2_r = tj.full %ln2 [q_rows] : f32 -> tensor<?xf32>
      %m_natural = arith.mulf %m, %ln2_r : tensor<?xf32>
      %lse_valid = arith.addf %m_natural, %log_l : tensor<?xf32>
      %lse = arith.select %l_zero, %ninf_r, %lse_valid : tensor<?xi1>, tensor<?xf32>
      // The only partition of its sequence holds the final output (the merge skips the
      // sequence): no partial round trip through memory and no merge work. A context past
      // max_partitions partitions is cut there (as the merge cuts it), so in a grid of one
      // partition every sequence has one; an empty sequence here has none (output 0).
      %needed = arith.ceildivsi %seq_len, %partition_size : index
      %used = arith.minsi %needed, %max_partitions : index
      %single = arith.cmpi sle, %used, %c1 : index
      scf.if %single {
        %final = arith.truncf %normalized : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
        tj.store %final, %output[%seq, %head0, %c0] limits [%num_seqs, %head_end, %head_size]
            : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
      } else {
        scf.if %clustered {
          tj.cluster_merge_store %normalized, %lse count %used into %output[%seq, %head0, %c0]
              limits [%num_seqs, %head_end, %head_size]
              : tensor<?x?xf32>, tensor<?xf32>, !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
        } else {
          tj.store %normalized, %partial_out[%seq, %partition, %head0, %c0]
              limits [%num_seqs, %max_partitions, %head_end, %head_size]
              : tensor<?x?xf32>, !tj.view<[num_seqs, max_partitions, num_q_heads, head_size], f32>
          tj.store %lse, %partial_lse[%seq, %partition, %head0] limits [%num_seqs, %max_partitions, %head_end]
              : tensor<?xf32>, !tj.view<[num_seqs, max_partitions, num_q_heads], f32>
          scf.if %merge_here {
            // Every partition of the grid that starts before the sequence's end arrives, after
            // its stores.
            %last_here = tj.arrive %arrivals[%seq, %kv_head] count %used
                : !tj.view<[num_seqs, num_kv_heads], i32>
            scf.if %last_here {
              // The merge of paged_decode_reduce, one partition at a time (its own constants:
              // these tiles keep the loads' layout, not the dots').
              %zero_m = arith.constant 0.0 : f32
              %one_m = arith.constant 1.0 : f32
              %ninf_m = arith.constant 0xFF800000 : f32
              %zero_h = tj.full %zero_m [q_rows] : f32 -> tensor<?xf32>
              %one_h = tj.full %one_m [q_rows] : f32 -> tensor<?xf32>
              %ninf_h = tj.full %ninf_m [q_rows] : f32 -> tensor<?xf32>
              %zero_o = tj.full %zero_m [q_rows, head_size] : f32 -> tensor<?x?xf32>
              %m_all, %l_all, %acc_all = scf.for %p = %c0 to %used step %c1
                  iter_args(%m_p = %ninf_h, %l_p = %zero_h, %acc_p = %zero_o)
                  -> (tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>) {
                %lse_p = tj.load %partial_lse[%seq, %p, %head0] limits [%num_seqs, %max_partitions, %head_end]
                    other %ninf_m : f32 [q_rows]
                    : !tj.view<[num_seqs, max_partitions, num_q_heads], f32> -> tensor<?xf32>
                %out_p = tj.load %partial_out[%seq, %p, %head0, %c0]
                    limits [%num_seqs, %max_partitions, %head_end, %head_size] [q_rows, head_size]
                    : !tj.view<[num_seqs, max_partitions, num_q_heads, head_size], f32> -> tensor<?x?xf32>
                // While every LSE so far is -inf the shift is 0 and all weights are 0.
                %m_next = arith.maximumf %m_p, %lse_p : tensor<?xf32>
                %m_none = arith.cmpf oeq, %m_next, %ninf_h : tensor<?xf32>
                %shift_m = arith.select %m_none, %zero_h, %m_next : tensor<?xi1>, tensor<?xf32>
                %old_m = arith.subf %m_p, %shift_m : tensor<?xf32>
                %alpha_m = math.exp %old_m : tensor<?xf32>
                %rel_m = arith.subf %lse_p, %shift_m : tensor<?xf32>
                %w = math.exp %rel_m : tensor<?xf32>
                %l_old = arith.mulf %l_p, %alpha_m : tensor<?xf32>
                %l_next = arith.addf %l_old, %w : tensor<?xf32>
                %w_col = tj.expand_dims %w axis 1 : tensor<?xf32> -> tensor<?x1xf32>
                %w_2d = tj.broadcast %w_col [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
                // A partition of weight 0 (no valid token, rows past the group) never
                // contributes, whatever its workspace holds.
                %w_zero = arith.cmpf oeq, %w_2d, %zero_o : tensor<?x?xf32>
                %weighted = arith.mulf %out_p, %w_2d : tensor<?x?xf32>
                %part = arith.select %w_zero, %zero_o, %weighted : tensor<?x?xi1>, tensor<?x?xf32>
                %alpha_col_m = tj.expand_dims %alpha_m axis 1 : tensor<?xf32> -> tensor<?x1xf32>
                %alpha_2d_m = tj.broadcast %alpha_col_m [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
                %acc_old = arith.mulf %acc_p, %alpha_2d_m : tensor<?x?xf32>
                %acc_next = arith.addf %acc_old, %part : tensor<?x?xf32>
                scf.yield %m_next, %l_next, %acc_next : tensor<?xf32>, tensor<?xf32>, tensor<?x?xf32>
              }
              %l_none = arith.cmpf oeq, %l_all, %zero_h : tensor<?xf32>
              %div_m = arith.select %l_none, %one_h, %l_all : tensor<?xi1>, tensor<?xf32>
              %inv_m = arith.divf %one_h, %div_m : tensor<?xf32>
              %inv_col_m = tj.expand_dims %inv_m axis 1 : tensor<?xf32> -> tensor<?x1xf32>
              %inv_2d_m = tj.broadcast %inv_col_m [q_rows, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
              %merged = arith.mulf %acc_all, %inv_2d_m : tensor<?x?xf32>
              %merged_out = arith.truncf %merged : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"dtype">>
              tj.store %merged_out, %output[%seq, %head0, %c0] limits [%num_seqs, %head_end, %head_size]
                  : tensor<?x?x!tj.dtype<"dtype">>, !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
            }
          }
        }
      }
    }
  }
}
