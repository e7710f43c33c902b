
tj.template @unknown_param {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    // expected-error@+1 {{references unknown parameter 'num_warps'}}
    %w = tj.param_value @num_warps : index
    tj.yield %w : index
  }
  tj.kernel @unknown_param(%x: !tj.view<[rows], f32>) {
  }
}
