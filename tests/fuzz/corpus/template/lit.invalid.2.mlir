
tj.template @two_domains {
  // expected-error@+1 {{needs exactly one domain}}
  tj.param @n : int values [1] range [1, 4]
}
