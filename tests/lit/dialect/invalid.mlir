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

// -----

tj.template @bad_role {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{kv_cache role must be 'k', 'v' or 'latent', got 'q'}}
  tj.kernel @bad_role(%c: !tj.kv_cache<q, [n, 16, 8, 128], bf16, layout = standard>) {
  }
}

// -----

tj.template @rank_one_cache {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{kv_cache extents are [blocks, block_size, ...] with rank 2 to 6, got 1 extents}}
  tj.kernel @rank_one_cache(%c: !tj.kv_cache<k, [n], bf16, layout = standard>) {
  }
}

// -----

tj.template @shuffled_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{a shuffled kv_cache is a K or V cache [blocks, block_size, kv_heads, head_size]; got role 'latent' with 3 extents}}
  tj.kernel @shuffled_latent(%c: !tj.kv_cache<latent, [n, 16, 576], bf16, layout = shuffled>) {
  }
}

// -----

tj.template @scaled_bf16 {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{only a kv_cache of 8-bit elements (f8E4M3FN, f8E5M2, i8) takes a scale; got 'bf16'}}
  tj.kernel @scaled_bf16(%c: !tj.kv_cache<k, [n, 16, 8, 128], bf16, layout = standard, scale = per_tensor>) {
  }
}

// -----

tj.template @per_head_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{a per_head scale needs a head axis: [blocks, block_size, kv_heads, head_size], got 3 extents}}
  tj.kernel @per_head_latent(%c: !tj.kv_cache<latent, [n, 16, 576], f8E4M3FN, layout = standard, scale = per_head>) {
  }
}

// -----

tj.template @group_not_dividing {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{per_token_group<100> must divide the last extent 576}}
  tj.kernel @group_not_dividing(%c: !tj.kv_cache<latent, [n, 16, 576], f8E4M3FN, layout = standard, scale = per_token_group<100>>) {
  }
}

// -----

tj.template @unknown_scale {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{scale must be per_tensor, per_head or per_token_group<G>, got 'per_row'}}
  tj.kernel @unknown_scale(%c: !tj.kv_cache<k, [n, 16, 8, 128], i8, layout = standard, scale = per_row>) {
  }
}

// -----

tj.template @empty_group {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{per_token_group<G> needs a group size G > 0}}
  tj.kernel @empty_group(%c: !tj.kv_cache<k, [n, 16, 8, 128], i8, layout = standard, scale = per_token_group<0>>) {
  }
}

// -----

tj.template @bad_dtype_width {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{!tj.dtype width must be 0 (storage), 8, 16 or 32, got 12}}
  tj.kernel @bad_dtype_width(%c: !tj.view<[n], !tj.dtype<"dtype", 12>>) {
  }
}

// -----

// A parameter of 8-bit types cannot also bind a 16-bit one.
tj.template @dtype_domain_width {
  tj.param @kv_dtype : type values [f8E4M3FN, bf16]
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  // expected-error@+1 {{!tj.dtype<"kv_dtype", 8> may be bound to 'bf16' of 16 bits}}
  tj.kernel @dtype_domain_width(%c: !tj.view<[n], !tj.dtype<"kv_dtype", 8>>) {
  }
}

// -----

// The paged ops address [blocks, block_size, kv_heads, head_size]; a latent cache has no head
// axis.
tj.template @paged_load_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @paged_load_latent(%c: !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>,
                               %table: !tj.view<[s, b], i32>) {
    %c0 = arith.constant 0 : index
    // expected-error@+1 {{needs a cache with a head axis, [blocks, block_size, kv_heads, head_size]; got 3 extents (latent cache)}}
    %t = tj.paged_load %c, %table[%c0] tokens %c0 limit %c0 head %c0 [16, 576] : !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>, !tj.view<[s, b], i32> -> tensor<16x576xbf16>
  }
}

// -----

tj.template @paged_store_latent {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @paged_store_latent(%c: !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>, %x: bf16) {
    %c0 = arith.constant 0 : index
    %t = tj.full %x [1, 576] : bf16 -> tensor<1x576xbf16>
    // expected-error@+1 {{needs a cache with a head axis}}
    tj.paged_store %t, %c block %c0 slot %c0 head %c0 : tensor<1x576xbf16>, !tj.kv_cache<latent, [n, 16, 576], bf16, layout = standard>
  }
}
