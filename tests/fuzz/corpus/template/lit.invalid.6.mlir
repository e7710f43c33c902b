
tj.template @data_dependent_threads {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    // expected-error@+1 {{cannot be used in the threads region: it may depend only on parameters and the target}}
    %w = tj.shape_symbol "rows" : index
    tj.yield %w : index
  }
  tj.kernel @data_dependent_threads(%x: !tj.view<[rows], f32>) {
  }
}
