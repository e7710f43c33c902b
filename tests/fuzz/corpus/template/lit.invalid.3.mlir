
tj.template @bad_kind {
  // expected-error@+1 {{does not fit a parameter of kind 'int'}}
  tj.param @n : int values ["a"]
}
