
tj.template @unknown_scale {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{scale must be per_tensor, per_head or per_token_group<G>, got 'per_row'}}
  tj.kernel @unknown_scale(%c: !tj.kv_cache<k, [n, 16, 8, 128], i8, layout = standard, scale = per_row>) {
  }
}
