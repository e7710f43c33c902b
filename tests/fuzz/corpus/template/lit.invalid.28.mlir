
tj.template @bad_dtype_width {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{!tj.dtype width must be 0 (storage), 8, 16 or 32, got 12}}
  tj.kernel @bad_dtype_width(%c: !tj.view<[n], !tj.dtype<"dtype", 12>>) {
  }
}
