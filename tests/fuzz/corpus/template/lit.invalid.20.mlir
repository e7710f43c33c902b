
tj.template @bad_role {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{kv_cache role must be 'k', 'v' or 'latent', got 'q'}}
  tj.kernel @bad_role(%c: !tj.kv_cache<q, [n, 16, 8, 128], bf16, layout = standard>) {
  }
}
