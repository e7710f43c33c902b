
tj.template @grid_symbol_unknown {
  tj.launch grid {
    // expected-error@+1 {{names 'tokens', which is no extent of the kernel signature}}
    %t = tj.shape_symbol "tokens" : index
    %one = arith.constant 1 : index
    tj.yield %t, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @grid_symbol_unknown(%x: !tj.view<[rows], f32>) {
  }
}
