
// A marked loop without a one-step-ahead load is an error naming what was expected.
tj.template @nothing_ahead {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 32 : index
    tj.yield %w : index
  }
  tj.kernel @nothing_ahead(%lens: !tj.view<[4], i32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    // expected-error @+1 {{tj.prefetch_depth: the loop carries no tile loaded one step ahead}}
    scf.for %i = %c0 to %c4 step %c1 {
    } {tj.prefetch_depth = 2 : i64}
  }
}
