
tj.template @per_head_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{a per_head scale needs a head axis: [blocks, block_size, kv_heads, head_size], got 3 extents}}
  tj.kernel @per_head_latent(%c: !tj.kv_cache<latent, [n, 16, 576], f8E4M3FN, layout = standard, scale = per_head>) {
  }
}
