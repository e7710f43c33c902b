
tj.template @group_not_dividing {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{per_token_group<100> must divide the last extent 576}}
  tj.kernel @group_not_dividing(%c: !tj.kv_cache<latent, [n, 16, 576], f8E4M3FN, layout = standard, scale = per_token_group<100>>) {
  }
}
