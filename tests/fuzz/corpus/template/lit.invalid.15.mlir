
// tj.arrive counts in i32 counters, one index per axis.
tj.template @arrive_f32 {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @arrive_f32(%x: !tj.view<[n], f32>, %y: !tj.view<[n, m], i32>) {
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    // expected-error@+1 {{counts in an i32 view, not 'f32'}}
    %a = tj.arrive %x[%c0] count %c2 : !tj.view<[n], f32>
  }
}
