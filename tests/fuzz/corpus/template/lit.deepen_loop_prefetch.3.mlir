
tj.template @bad_depth {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 32 : index
    tj.yield %w : index
  }
  tj.kernel @bad_depth(%lens: !tj.view<[4], i32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{tj.prefetch_depth must be an integer in [1, 3] (or name an int parameter), got "prefetch_depth"}}
    scf.for %i = %c0 to %c4 step %c1 {
    } {tj.prefetch_depth = "prefetch_depth"}
  }
}
