tj.template @unclosed_loop {
  tj.param @n : int values [1, 2] default 1
  tj.kernel @unclosed_loop(
      %out: !tj.view<[n], f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %c1 step %c1 {
      %sum = arith.addi %i, %c1 : index
  }
}
