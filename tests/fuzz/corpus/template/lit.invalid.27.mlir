
tj.template @empty_group {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{per_token_group<G> needs a group size G > 0}}
  tj.kernel @empty_group(%c: !tj.kv_cache<k, [n, 16, 8, 128], i8, layout = standard, scale = per_token_group<0>>) {
  }
}
