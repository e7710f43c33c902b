// Writes the K and V rows of new tokens into a paged cache through slot_mapping
// (slot = block * block_size + offset; slot -1 = skip the token, e.g. padding).
// The cache layout is a parameter: "standard" [blocks, block_size, kv_heads, head_size] or
// "shuffled" (CONTEXT.md section 5). Block size is bound at specialization: any value in
// the domain is correct, including 1 and non-multiples of 16. An fp8 cache (kv_dtype
// f8E4M3FN / f8E5M2) stores value / scale rounded to nearest even, saturated to the format's
// largest finite value (infinities too), NaN kept; the scale one per tensor (k_scales[0]) or
// one per kv head (k_scales[head]), as paged_decode reads it back.
tj.template @reshape_and_cache {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @kv_dtype : type values [f16, bf16, f8E4M3FN, f8E5M2] default bf16
  tj.param @kv_scale : string values ["per_tensor", "per_head"] default "per_tensor"
  tj.param @head_size : int values [32, 64, 80, 96, 112, 128, 192, 256, 512, 576] default 128
  tj.param @block_size : int values [1, 2, 4, 8, 16, 32, 64, 128, 256] default 16
  tj.param @kv_layout : string values ["standard", "shuffled"] default "standard"
  tj.param @heads_per_tile : int values [1, 2, 4, 8, 16, 32] default 8
  tj.param @tokens_per_program : int range [1, 64]
  tj.param @num_warps : int values [1, 2, 4, 8, 16]
  // Occupancy hint (programs resident per SM; 0 = none): caps registers per thread.
  tj.param @min_blocks_per_sm : int range [0, 32] default 0

  // The shuffled V layout groups X = 8 tokens (16 bytes of f16/bf16) of a block together.
  tj.constraint "the shuffled layout needs block_size to be a multiple of 8" {
    %shuffled = tj.param_equals @kv_layout, "shuffled"
    %block = tj.param_value @block_size : index
    %eight = arith.constant 8 : index
    %rem = arith.remsi %block, %eight : index
    %zero = arith.constant 0 : index
    %aligned = arith.cmpi eq, %rem, %zero : index
    %true = arith.constant true
    %not_shuffled = arith.xori %shuffled, %true : i1
    %ok = arith.ori %not_shuffled, %aligned : i1
    tj.yield %ok : i1
  }

  tj.constraint "kv_dtype must be dtype or an fp8 type (f8E4M3FN, f8E5M2)" {
    %e4m3 = tj.param_equals @kv_dtype, f8E4M3FN
    %e5m2 = tj.param_equals @kv_dtype, f8E5M2
    %fp8 = arith.ori %e4m3, %e5m2 : i1
    %kv_bf16 = tj.param_equals @kv_dtype, bf16
    %in_bf16 = tj.param_equals @dtype, bf16
    %kv_f16 = tj.param_equals @kv_dtype, f16
    %in_f16 = tj.param_equals @dtype, f16
    %both_bf16 = arith.andi %kv_bf16, %in_bf16 : i1
    %both_f16 = arith.andi %kv_f16, %in_f16 : i1
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

  tj.kernel @reshape_and_cache(
      %key: !tj.view<[num_tokens, num_kv_heads, head_size], !tj.dtype<"dtype">>,
      %value: !tj.view<[num_tokens, num_kv_heads, head_size], !tj.dtype<"dtype">>,
      %key_cache: !tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>,
      %value_cache: !tj.kv_cache<v, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>,
      %slot_mapping: !tj.view<[num_tokens], i64>,
      %k_scales: !tj.view<[num_kv_scales], f32>,
      %v_scales: !tj.view<[num_kv_scales], f32>) {
    %program = tj.program_id 0 : index
    %per_program = tj.param_value @tokens_per_program : index
    %tokens = tj.shape_symbol "num_tokens" : index
    %kv_heads = tj.shape_symbol "num_kv_heads" : index
    %heads_per_tile = tj.param_value @heads_per_tile : index
    %block_size = tj.param_value @block_size : index
    %first = arith.muli %program, %per_program : index
    %past_last = arith.addi %first, %per_program : index
    %end = arith.minsi %past_last, %tokens : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i64 = arith.constant 0 : i64
    %e4m3 = tj.param_equals @kv_dtype, f8E4M3FN
    %e5m2 = tj.param_equals @kv_dtype, f8E5M2
    %fp8 = arith.ori %e4m3, %e5m2 : i1
    scf.for %token = %first to %end step %c1 {
      %slot = tj.load_scalar %slot_mapping[%token] : !tj.view<[num_tokens], i64> -> i64
      %keep = arith.cmpi sge, %slot, %c0_i64 : i64
      scf.if %keep {
        %slot_index = arith.index_cast %slot : i64 to index
        %block = arith.divsi %slot_index, %block_size : index
        %offset = arith.remsi %slot_index, %block_size : index
        scf.for %head = %c0 to %kv_heads step %heads_per_tile {
          %k = tj.load %key[%token, %head, %c0] [heads_per_tile, head_size]
              : !tj.view<[num_tokens, num_kv_heads, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
          %v = tj.load %value[%token, %head, %c0] [heads_per_tile, head_size]
              : !tj.view<[num_tokens, num_kv_heads, head_size], !tj.dtype<"dtype">> -> tensor<?x?x!tj.dtype<"dtype">>
          // The stored codes: the values themselves (a 16-bit cache: the extf / truncf pair
          // folds away), or value / scale clamped to the fp8 format's finite range
          // (minimumf / maximumf keep NaN) and rounded by truncf.
          %k_wide = arith.extf %k : tensor<?x?x!tj.dtype<"dtype">> to tensor<?x?xf32>
          %v_wide = arith.extf %v : tensor<?x?x!tj.dtype<"dtype">> to tensor<?x?xf32>
          %k_scaled, %v_scaled = scf.if %fp8 -> (tensor<?x?xf32>, tensor<?x?xf32>) {
            %per_head = tj.param_equals @kv_scale, "per_head"
            %k_div, %v_div = scf.if %per_head -> (tensor<?xf32>, tensor<?xf32>) {
              %one = arith.constant 1.0 : f32
              %k_heads = tj.load %k_scales[%head] limits [%kv_heads] other %one : f32 [heads_per_tile]
                  : !tj.view<[num_kv_scales], f32> -> tensor<?xf32>
              %v_heads = tj.load %v_scales[%head] limits [%kv_heads] other %one : f32 [heads_per_tile]
                  : !tj.view<[num_kv_scales], f32> -> tensor<?xf32>
              scf.yield %k_heads, %v_heads : tensor<?xf32>, tensor<?xf32>
            } else {
              %k_one = tj.load_scalar %k_scales[%c0] : !tj.view<[num_kv_scales], f32> -> f32
              %v_one = tj.load_scalar %v_scales[%c0] : !tj.view<[num_kv_scales], f32> -> f32
              %k_all = tj.full %k_one [heads_per_tile] : f32 -> tensor<?xf32>
              %v_all = tj.full %v_one [heads_per_tile] : f32 -> tensor<?xf32>
              scf.yield %k_all, %v_all : tensor<?xf32>, tensor<?xf32>
            }
            %e4m3_max = arith.constant 448.0 : f32
            %e5m2_max = arith.constant 57344.0 : f32
            %largest = arith.select %e4m3, %e4m3_max, %e5m2_max : f32
            %lowest = arith.negf %largest : f32
            %max_2d = tj.full %largest [heads_per_tile, head_size] : f32 -> tensor<?x?xf32>
            %min_2d = tj.full %lowest [heads_per_tile, head_size] : f32 -> tensor<?x?xf32>
            %k_col = tj.expand_dims %k_div axis 1 : tensor<?xf32> -> tensor<?x1xf32>
            %v_col = tj.expand_dims %v_div axis 1 : tensor<?xf32> -> tensor<?x1xf32>
            %k_div_2d = tj.broadcast %k_col [heads_per_tile, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
            %v_div_2d = tj.broadcast %v_col [heads_per_tile, head_size] : tensor<?x1xf32> -> tensor<?x?xf32>
            %k_q = arith.divf %k_wide, %k_div_2d : tensor<?x?xf32>
            %v_q = arith.divf %v_wide, %v_div_2d : tensor<?x?xf32>
            %k_low = arith.maximumf %k_q, %min_2d : tensor<?x?xf32>
            %v_low = arith.maximumf %v_q, %min_2d : tensor<?x?xf32>
            %k_sat = arith.minimumf %k_low, %max_2d : tensor<?x?xf32>
            %v_sat = arith.minimumf %v_low, %max_2d : tensor<?x?xf32>
            scf.yield %k_sat, %v_sat : tensor<?x?xf32>, tensor<?x?xf32>
          } else {
            scf.yield %k_wide, %v_wide : tensor<?x?xf32>, tensor<?x?xf32>
          }
          %k_code = arith.truncf %k_scaled : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"kv_dtype", 0>>
          %v_code = arith.truncf %v_scaled : tensor<?x?xf32> to tensor<?x?x!tj.dtype<"kv_dtype", 0>>
          tj.paged_store %k_code, %key_cache block %block slot %offset head %head
              : tensor<?x?x!tj.dtype<"kv_dtype", 0>>, !tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>
          tj.paged_store %v_code, %value_cache block %block slot %offset head %head
              : tensor<?x?x!tj.dtype<"kv_dtype", 0>>, !tj.kv_cache<v, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"kv_dtype", 0>, layout = kv_layout>
        }
      }
    }
  }
}
