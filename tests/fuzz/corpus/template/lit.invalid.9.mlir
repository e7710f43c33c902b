
tj.template @bad_view {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{a view has rank 1 to 6, got 0}}
  tj.kernel @bad_view(%x: !tj.view<[], f32>) {
  }
}
