
// expected-error@+1 {{must hold exactly one tj.kernel, found 0}}
tj.template @no_kernel {
  tj.param @head_size : int values [64, 128] default 128
}
