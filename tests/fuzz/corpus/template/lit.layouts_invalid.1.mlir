
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    %t = tj.full %v [16, 8] : f32 -> tensor<16x8xf32, #tj.mma>
    // expected-error @+1 {{reduces an mma tile along axis 1 only, to an mma_rows tile}}
    %r = tj.reduce sum %t axis 0 : tensor<16x8xf32, #tj.mma> -> tensor<8xf32>
  }
}
