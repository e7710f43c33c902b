// RUN: tj-opt %s -split-input-file -verify-diagnostics
// Malformed templates are rejected with a diagnostic at the offending line.

tj.template @no_kernel {
  // expected-error@+1 {{default 100 : i64 is outside the domain 64, 128}}
  tj.param @head_size : int values [64, 128] default 100
}

// -----

// expected-error@+1 {{must hold exactly one tj.kernel, found 0}}
tj.template @no_kernel {
  tj.param @head_size : int values [64, 128] default 128
}

// -----

tj.template @two_domains {
  // expected-error@+1 {{needs exactly one domain}}
  tj.param @n : int values [1] range [1, 4]
}

// -----

tj.template @bad_kind {
  // expected-error@+1 {{does not fit a parameter of kind 'int'}}
  tj.param @n : int values ["a"]
}

// -----

tj.template @bad_load {
  tj.param @n : int values [16] default 16
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @bad_load(%x: !tj.view<[rows, 16], f32>) {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{expects one offset per view axis (2), got 1}}
    %t = tj.load %x[%c0] [n] : !tj.view<[rows, 16], f32> -> tensor<?xf32>
  }
}

// -----

tj.template @unknown_param {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    // expected-error@+1 {{references unknown parameter 'num_warps'}}
    %w = tj.param_value @num_warps : index
    tj.yield %w : index
  }
  tj.kernel @unknown_param(%x: !tj.view<[rows], f32>) {
  }
}

// -----

tj.template @data_dependent_threads {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    // expected-error@+1 {{cannot be used in the threads region: it may depend only on parameters and the target}}
    %w = tj.shape_symbol "rows" : index
    tj.yield %w : index
  }
  tj.kernel @data_dependent_threads(%x: !tj.view<[rows], f32>) {
  }
}

// -----

tj.template @grid_symbol_unknown {
  tj.launch grid {
    // expected-error@+1 {{names 'tokens', which is no extent of the kernel signature}}
    %t = tj.shape_symbol "tokens" : index
    %one = arith.constant 1 : index
    tj.yield %t, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @grid_symbol_unknown(%x: !tj.view<[rows], f32>) {
  }
}

// -----

tj.template @bad_dot {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @bad_dot(%x: !tj.view<[rows], f32>) {
    %z = arith.constant 0.0 : f32
    %a = tj.full %z [16, 32] : f32 -> tensor<16x32xf32>
    %b = tj.full %z [16, 8] : f32 -> tensor<16x8xf32>
    %acc = tj.full %z [16, 8] : f32 -> tensor<16x8xf32>
    // expected-error@+1 {{contraction extents differ: 32 vs 16}}
    %d = tj.dot %a, %b, %acc : tensor<16x32xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  }
}

// -----

tj.template @bad_view {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{a view has rank 1 to 6, got 0}}
  tj.kernel @bad_view(%x: !tj.view<[], f32>) {
  }
}

// -----

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

// -----

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

// -----

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

// -----

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

// -----

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

// -----

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

// -----

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

// -----

// tj.cluster_merge_store merges f32 partials, one LSE per row.
tj.template @cluster_merge_rows {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @cluster_merge_rows(%out: !tj.view<[n, m], bf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %partial = tj.full %zero [16, 64] : f32 -> tensor<16x64xf32>
    %lse = tj.full %zero [8] : f32 -> tensor<8xf32>
    // expected-error@+1 {{has 16 partial rows but 8 LSEs}}
    tj.cluster_merge_store %partial, %lse count %c0 into %out[%c0, %c0] : tensor<16x64xf32>, tensor<8xf32>, !tj.view<[n, m], bf16>
  }
}

// -----

tj.template @cluster_merge_f16 {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @cluster_merge_f16(%out: !tj.view<[n, m], bf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %partial = tj.full %zero [16, 64] : f16 -> tensor<16x64xf16>
    %lse = tj.full %zero [16] : f16 -> tensor<16xf16>
    // expected-error@+1 {{merges f32 partials and LSEs}}
    tj.cluster_merge_store %partial, %lse count %c0 into %out[%c0, %c0] : tensor<16x64xf16>, tensor<16xf16>, !tj.view<[n, m], bf16>
  }
}

// -----

tj.template @bad_range_axis {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @bad_range_axis(%x: !tj.view<[rows], f32>) {
    %c0_i32 = arith.constant 0 : i32
    // expected-error@+1 {{axis 2 is not an axis of a rank-2 tile}}
    %r = tj.range %c0_i32 [16, 32] axis 2 : i32 -> tensor<16x32xi32>
  }
}
