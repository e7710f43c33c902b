
tj.template @writes_ready_view_before_waiting {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @writes_ready_view_before_waiting(%x: !tj.view<[n], i32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : i32
    tj.store_scalar %c1, %x[%c0] : i32, !tj.view<[n], i32>
    // expected-error@+1 {{'tj.store_scalar' comes first}}
    tj.wait_previous_kernel ready(%x : !tj.view<[n], i32>)
  }
}
