
tj.template @bad_dot {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @bad_dot(%x: !tj.view<[rows], f32>) {
    %z = arith.constant 0.0 : f32
    %a = tj.full %z [16, 32] : f32 -> tensor<16x32xf32>
    %b = tj.full %z [16, 8] : f32 -> tensor<16x8xf32>
    %acc = tj.full %z [16, 8] : f32 -> tensor<16x8xf32>
    // expected-error@+1 {{contraction extents differ: 32 vs 16}}
    %d = tj.dot %a, %b, %acc : tensor<16x32xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  }
}
