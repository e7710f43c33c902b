
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%x: !tj.view<[16], f32>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{produces a tile in the blocked layout; got mma_rows}}
    %t = tj.load %x[%c0] [16] : !tj.view<[16], f32> -> tensor<16xf32, #tj.mma_rows>
  }
}
