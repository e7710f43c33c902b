
// The paged ops address [blocks, block_size, kv_heads, head_size]; a latent cache has no head
// axis.
tj.template @paged_load_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @paged_load_latent(%c: !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>,
                               %table: !tj.view<[s, b], i32>) {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{needs a cache with a head axis, [blocks, block_size, kv_heads, head_size]; got 3 extents (latent cache)}}
    %t = tj.paged_load %c, %table[%c0] tokens %c0 limit %c0 head %c0 [16, 576] : !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>, !tj.view<[s, b], i32> -> tensor<16x576xbf16>
  }
}
