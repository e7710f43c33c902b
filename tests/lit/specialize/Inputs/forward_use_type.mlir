tj.template @forward_use_type {
  tj.param @n : int values [1, 2] default 1
  tj.kernel @forward_use_type(%out: !tj.view<[n], f32>) {
    %a = arith.addi %b, %b : index
    %b = arith.constant 0 : i32
  }
}
