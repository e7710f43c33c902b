
tj.template @bad_range_axis {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @bad_range_axis(%x: !tj.view<[rows], f32>) {
    %c0_i32 = arith.constant 0 : i32
    // expected-error@+1 {{axis 2 is not an axis of a rank-2 tile}}
    %r = tj.range %c0_i32 [16, 32] axis 2 : i32 -> tensor<16x32xi32>
  }
}
