
tj.template @rank_one_cache {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{kv_cache extents are [blocks, block_size, ...] with rank 2 to 6, got 1 extents}}
  tj.kernel @rank_one_cache(%c: !tj.kv_cache<k, [n], bf16, layout = standard>) {
  }
}
