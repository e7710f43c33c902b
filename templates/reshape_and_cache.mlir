// Writes the K and V rows of new tokens into a paged cache through slot_mapping
// (slot = block * block_size + offset; slot -1 = skip the token, e.g. padding).
// The cache layout is a parameter: "standard" [blocks, block_size, kv_heads, head_size] or
// "shuffled" (CONTEXT.md section 5). Block size is bound at specialization: any value in
// the domain is correct, including 1 and non-multiples of 16.
tj.template @reshape_and_cache {
  tj.param @dtype : type values [f16, bf16] default bf16
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
      %key_cache: !tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"dtype">, layout = kv_layout>,
      %value_cache: !tj.kv_cache<v, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"dtype">, layout = kv_layout>,
      %slot_mapping: !tj.view<[num_tokens], i64>) {
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
          tj.paged_store %k, %key_cache block %block slot %offset head %head
              : tensor<?x?x!tj.dtype<"dtype">>, !tj.kv_cache<k, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"dtype">, layout = kv_layout>
          tj.paged_store %v, %value_cache block %block slot %offset head %head
              : tensor<?x?x!tj.dtype<"dtype">>, !tj.kv_cache<v, [num_blocks, block_size, num_kv_heads, head_size], !tj.dtype<"dtype">, layout = kv_layout>
        }
      }
    }
  }
}
