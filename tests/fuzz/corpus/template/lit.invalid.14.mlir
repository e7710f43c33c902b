
tj.template @wait_nested {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @wait_nested(%c: i1) {
    scf.if %c {
      // expected-error@+1 {{expects parent op 'tj.kernel'}}
      tj.wait_previous_kernel
    }
  }
}
