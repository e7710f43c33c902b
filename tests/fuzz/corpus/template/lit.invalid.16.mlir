
tj.template @arrive_rank {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @arrive_rank(%y: !tj.view<[n, m], i32>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    // expected-error@+1 {{index}}
    %a = tj.arrive %y[%c0] count %c2 : !tj.view<[n, m], i32>
  }
}
