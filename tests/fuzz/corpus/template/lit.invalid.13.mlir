
tj.template @prefetch_rank {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @prefetch_rank(%x: !tj.view<[n, m], i32>) {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{index}}
    tj.prefetch %x[%c0] count %c0 : !tj.view<[n, m], i32>
  }
}
