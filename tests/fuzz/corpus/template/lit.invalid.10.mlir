
// A kernel that lets the runtime launch it early must not read before it waits.
tj.template @reads_before_waiting {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @reads_before_waiting(%x: !tj.view<[n], i32>) {
    %c0 = arith.constant 0 : index
    %v = tj.load_scalar %x[%c0] : !tj.view<[n], i32> -> i32
    // expected-error@+1 {{must precede every op that touches memory but reads of its ready views; 'tj.load_scalar' comes first}}
    tj.wait_previous_kernel
  }
}
