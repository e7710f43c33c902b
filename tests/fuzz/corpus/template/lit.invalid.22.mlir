
tj.template @shuffled_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{a shuffled kv_cache is a K or V cache [blocks, block_size, kv_heads, head_size]; got role 'latent' with 3 extents}}
  tj.kernel @shuffled_latent(%c: !tj.kv_cache<latent, [n, 16, 576], bf16, layout = shuffled>) {
  }
}
