
tj.template @bad_load {
  tj.param @n : int values [16] default 16
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @bad_load(%x: !tj.view<[rows, 16], f32>) {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{expects one offset per view axis (2), got 1}}
    %t = tj.load %x[%c0] [n] : !tj.view<[rows, 16], f32> -> tensor<?xf32>
  }
}
