
tj.template @paged_store_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @paged_store_latent(%c: !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>, %x: bf16) {
    %c0 = arith.constant 0 : index
    %t = tj.full %x [1, 576] : bf16 -> tensor<1x576xbf16>
    // expected-error@+1 {{needs a cache with a head axis}}
    tj.paged_store %t, %c block %c0 slot %c0 head %c0 : tensor<1x576xbf16>, !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>
  }
}
