
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    %t = tj.full %v [16, 8] : f32 -> tensor<16x8xf32>
    // expected-error @+1 {{result type's layout is blocked, not mma}}
    %c = tj.convert_layout %t to "mma" : tensor<16x8xf32> -> tensor<16x8xf32>
  }
}
