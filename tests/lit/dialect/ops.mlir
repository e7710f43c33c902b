// RUN: tj-opt %s | tj-opt | FileCheck %s
// Round trip: every tj op and type prints in a form that parses back to the same IR.

// CHECK-LABEL: tj.template @all_ops
tj.template @all_ops {
  // CHECK: tj.param @dtype : type values [f16, bf16] default bf16{{$}}
  tj.param @dtype : type values [f16, bf16] default bf16
  // CHECK: tj.param @block_n : int range [16, 256]
  tj.param @block_n : int range [16, 256]
  // CHECK: tj.param @head_size : int values [64, 128] default 128 : i64
  tj.param @head_size : int values [64, 128] default 128
  // CHECK: tj.param @layout : string values ["standard", "shuffled"] default "standard"
  tj.param @layout : string values ["standard", "shuffled"] default "standard"
  // CHECK: tj.constraint "block_n is a multiple of 16"
  tj.constraint "block_n is a multiple of 16" {
    %n = tj.param_value @block_n : index
    %c16 = arith.constant 16 : index
    %r = arith.remsi %n, %c16 : index
    %c0 = arith.constant 0 : index
    %ok = arith.cmpi eq, %r, %c0 : index
    tj.yield %ok : i1
  }
  // CHECK: tj.launch grid
  tj.launch grid {
    %s = tj.shape_symbol "num_seqs" : index
    %h = tj.shape_symbol "num_kv_heads" : index
    %one = arith.constant 1 : index
    tj.yield %s, %h, %one : index, index, index
  } threads {
    %w = tj.target_value "warp_size" : index
    tj.yield %w : index
  }
  // CHECK: tj.kernel @all_ops(%q: !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>, %cache: !tj.kv_cache<k, [num_blocks, 16, num_kv_heads, head_size], !tj.dtype<"dtype">, layout = layout>
  tj.kernel @all_ops(%q: !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>,
                     %cache: !tj.kv_cache<k, [num_blocks, 16, num_kv_heads, head_size], !tj.dtype<"dtype">, layout = layout>,
                     %table: !tj.view<[num_seqs, max_blocks], i32>,
                     %lens: !tj.view<[num_seqs], i32>, %scale: f32) {
    %seq = tj.program_id 0 : index
    %head = tj.program_id 1 : index
    %n = tj.num_programs 0 : index
    %c0 = arith.constant 0 : index
    // CHECK: tj.prefetch %table[%{{.*}}, %{{.*}}] count %{{.*}} : <[num_seqs, max_blocks], i32>
    tj.prefetch %table[%seq, %c0] count %n : !tj.view<[num_seqs, max_blocks], i32>
    %len32 = tj.load_scalar %lens[%seq] : !tj.view<[num_seqs], i32> -> i32
    %len = arith.index_cast %len32 : i32 to index
    // CHECK: tj.load {{.*}} [16, head_size]
    %q_tile = tj.load %q[%seq, %c0, %c0] [16, head_size] : !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">> -> tensor<16x?x!tj.dtype<"dtype">>
    // CHECK: tj.paged_load {{.*}} tokens {{.*}} limit {{.*}} head {{.*}} [block_n, head_size]
    %k = tj.paged_load %cache, %table[%seq] tokens %c0 limit %len head %head [block_n, head_size] : !tj.kv_cache<k, [num_blocks, 16, num_kv_heads, head_size], !tj.dtype<"dtype">, layout = layout>, !tj.view<[num_seqs, max_blocks], i32> -> tensor<?x?x!tj.dtype<"dtype">>
    %zero = arith.constant 0.0 : f32
    %acc = tj.full %zero [16, block_n] : f32 -> tensor<16x?xf32>
    // CHECK: tj.dot {{.*}} {trans_b}
    %s = tj.dot %q_tile, %k, %acc {trans_b} : tensor<16x?x!tj.dtype<"dtype">>, tensor<?x?x!tj.dtype<"dtype">>, tensor<16x?xf32> -> tensor<16x?xf32>
    // CHECK: tj.reduce max
    %m = tj.reduce max %s axis 1 : tensor<16x?xf32> -> tensor<16xf32>
    %m2 = tj.expand_dims %m axis 1 : tensor<16xf32> -> tensor<16x1xf32>
    %mb = tj.broadcast %m2 [16, block_n] : tensor<16x1xf32> -> tensor<16x?xf32>
    // CHECK: tj.range %{{.*}} [block_n] : i32 -> tensor<?xi32>
    %r = tj.range %len32 [block_n] : i32 -> tensor<?xi32>
    // CHECK: tj.range %{{.*}} [16, block_n] axis 1 : i32 -> tensor<16x?xi32>
    %cols = tj.range %len32 [16, block_n] axis 1 : i32 -> tensor<16x?xi32>
    %flat = tj.reshape %m [4, 4] : tensor<16xf32> -> tensor<4x4xf32>
    %c = tj.convert_layout %flat to "blocked" : tensor<4x4xf32> -> tensor<4x4xf32>
    %total = tj.reduce sum %m axis 0 : tensor<16xf32> -> f32
    tj.store_scalar %len32, %lens[%seq] : i32, !tj.view<[num_seqs], i32>
    // CHECK: tj.arrive %lens[%{{.*}}] count %{{.*}} : <[num_seqs], i32>
    %last = tj.arrive %lens[%seq] count %n : !tj.view<[num_seqs], i32>
    // CHECK: tj.cluster_merge_store %{{.*}}, %{{.*}} count %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] limits[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<16x?xf32>, tensor<16xf32>, <[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
    tj.cluster_merge_store %s, %m count %n into %q[%seq, %head, %n] limits [%n, %n, %n]
        : tensor<16x?xf32>, tensor<16xf32>, !tj.view<[num_seqs, num_q_heads, head_size], !tj.dtype<"dtype">>
  }
}

// Reads of views the previous kernel does not write may come before the wait.
// CHECK-LABEL: tj.template @early_reads
tj.template @early_reads {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 32 : index
    tj.yield %w : index
  }
  tj.kernel @early_reads(%lens: !tj.view<[n], i32>, %table: !tj.view<[n, m], i32>, %out: !tj.view<[n], i32>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %len = tj.load_scalar %lens[%c0] : !tj.view<[n], i32> -> i32
    tj.prefetch %table[%c0, %c0] count %c4 : !tj.view<[n, m], i32>
    // CHECK: tj.wait_previous_kernel ready(%{{.*}}, %{{.*}} : !tj.view<[n], i32>, !tj.view<[n, m], i32>)
    tj.wait_previous_kernel ready(%lens, %table : !tj.view<[n], i32>, !tj.view<[n, m], i32>)
    tj.store_scalar %len, %out[%c0] : i32, !tj.view<[n], i32>
  }
}
