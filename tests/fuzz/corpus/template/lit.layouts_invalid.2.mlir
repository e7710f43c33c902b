
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    %t = tj.full %v [16, 1] : f32 -> tensor<16x1xf32>
    // expected-error @+1 {{broadcasts blocked to mma; only mma_rows -> mma and blocked -> blocked}}
    %b = tj.broadcast %t [16, 8] : tensor<16x1xf32> -> tensor<16x8xf32, #tj.mma>
  }
}
