tj.template @undeclared {
  tj.param @n : int values [1, 2] default 1
  tj.kernel @undeclared(%out: !tj.view<[n], f32>) {
    %c0 = arith.constant 0 : index
    %sum = arith.addi %c0, %offset : index
  }
}
