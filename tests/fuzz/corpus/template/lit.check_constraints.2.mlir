
// expected-error@+1 {{constraint 'block_n is even' did not fold to a constant}}
tj.template @unbound {
  tj.param @block_n : int values [16, 32]
  tj.constraint "block_n is even" {
    %n = tj.param_value @block_n : i64
    %two = arith.constant 2 : i64
    %rem = arith.remsi %n, %two : i64
    %zero = arith.constant 0 : i64
    %ok = arith.cmpi eq, %rem, %zero : i64
    tj.yield %ok : i1
  }
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @unbound() {
  }
}

// HOLDS: tj.template @paged_decode
// HOLDS-NOT: tj.constraint
// HOLDS: tj.launch
// FAILS: error: template 'paged_decode' rejects this specialization: the shuffled layout needs block_n of at least 32 (block_n=16, kv_layout=shuffled)
