
tj.template @scaled_bf16 {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{only a kv_cache of 8-bit elements (f8E4M3FN, f8E5M2, i8) takes a scale; got 'bf16'}}
  tj.kernel @scaled_bf16(%c: !tj.kv_cache<k, [n, 16, 8, 128], bf16, layout = standard, scale = per_tensor>) {
  }
}
