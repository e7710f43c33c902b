
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%x: !tj.view<[4, 16], bf16>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{shared_slots must be in [1, 4]}}
    %t = tj.load %x[%c0, %c0] [4, 16] {shared_buffer = 0 : i64, shared_slots = 5 : i64} : !tj.view<[4, 16], bf16> -> tensor<4x16xbf16>
  }
}
