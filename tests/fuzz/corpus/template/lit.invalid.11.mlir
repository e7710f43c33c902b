
// `ready` admits reads of the views it lists, not of others, and never writes.
tj.template @reads_other_view_before_waiting {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @reads_other_view_before_waiting(%x: !tj.view<[n], i32>, %y: !tj.view<[n], i32>) {
    %c0 = arith.constant 0 : index
    %v = tj.load_scalar %x[%c0] : !tj.view<[n], i32> -> i32
    %w = tj.load_scalar %y[%c0] : !tj.view<[n], i32> -> i32
    // expected-error@+1 {{'tj.load_scalar' comes first}}
    tj.wait_previous_kernel ready(%x : !tj.view<[n], i32>)
  }
}
