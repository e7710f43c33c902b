
// A parameter of 8-bit types cannot also bind a 16-bit one.
tj.template @dtype_domain_width {
  tj.param @kv_dtype : type values [f8E4M3FN, bf16]
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{!tj.dtype<"kv_dtype", 8> may be bound to 'bf16' of 16 bits}}
  tj.kernel @dtype_domain_width(%c: !tj.view<[n], !tj.dtype<"kv_dtype", 8>>) {
  }
}
