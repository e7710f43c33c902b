
// expected-error@+1 {{a loop marked tj.unroll in 'unknown_trip_count' does not have constant bounds after specialization}}
tj.template @unknown_trip_count {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 1 : index
    tj.yield %threads : index
  }
  tj.kernel @unknown_trip_count(%out: !tj.view<[n], f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = tj.shape_symbol "n" : index
    %zero = arith.constant 0.0 : f32
    scf.for %i = %c0 to %n step %c1 {
      tj.store_scalar %zero, %out[%i] : f32, !tj.view<[n], f32>
    } {tj.unroll}
  }
}
