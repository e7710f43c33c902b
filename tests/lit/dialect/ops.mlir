// RUN: tj-opt %s | tj-opt | FileCheck %s
// Round trip: every tj op and type prints in a form that parses back to the same IR.
// The attribute aliases the printer gives the matrix instructions of @new_forms (below).
// CHECK-DAG: #mma_sync_m16n8k16 = #tj.matrix_instr<"mma.sync.m16n8k16", m = 16, n = 8, k = 16, lanes = 32, a = <reg = {{.*}}>, b = <reg = {{.*}}>, acc = <reg = {{.*}}>>
// CHECK-DAG: #wgmma_m64n8k16 = #tj.matrix_instr<"wgmma.m64n8k16", m = 64, n = 8, k = 16, lanes = 128, acc = <reg = {{\[\[}}0, 1], [8, 0{{\]\]}}, lane = {{\[\[}}0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [16, 0], [32, 0{{\]\]}}>>
// CHECK-DAG: #mfma_f32_32x32x8bf16_1k = #tj.matrix_instr<"mfma_f32_32x32x8bf16_1k", m = 32, n = 32, k = 8, lanes = 64,
// CHECK-DAG: #wmma_f32_16x16x16_bf16 = #tj.matrix_instr<"wmma_f32_16x16x16_bf16", m = 16, n = 16, k = 16, lanes = 32, a = <reg = {{\[\[}}0, 1], [0, 2], [0, 4], [0, 8{{\]\]}}, lane = {{\[\[}}1, 0], [2, 0], [4, 0], [8, 0], [0, 0{{\]\]}}>,
// CHECK-DAG: #[[SYNC:mma[0-9]*]] = #tj.mma<#mma_sync_m16n8k16>
// CHECK-DAG: #[[ROWS:mma_rows[0-9]*]] = #tj.mma_rows<#mma_sync_m16n8k16>
// CHECK-DAG: #[[WGMMA:mma[0-9]*]] = #tj.mma<#wgmma_m64n8k16>
// CHECK-DAG: #[[MFMA:mma[0-9]*]] = #tj.mma<#mfma_f32_32x32x8bf16_1k>
// CHECK-DAG: #[[WMMA:mma[0-9]*]] = #tj.mma<#wmma_f32_16x16x16_bf16>
// CHECK-DAG: #[[BARE:mma[0-9]*]] = #tj.mma{{$}}

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

// Matrix instructions and the layouts that name them: mma.sync m16n8k16 (A, B, C), wgmma's
// accumulator (a warpgroup; B from shared memory), MFMA (wave64) and WMMA (wave32; gfx11's
// A/B replicated over the half-waves: a zero lane basis). Printed behind aliases.
#sync = #tj.matrix_instr<"mma.sync.m16n8k16", m = 16, n = 8, k = 16, lanes = 32,
    a = <reg = [[0, 1], [8, 0], [0, 8]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>,
    b = <reg = [[1, 0], [8, 0]], lane = [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]>,
    acc = <reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>>
#wgmma = #tj.matrix_instr<"wgmma.m64n8k16", m = 64, n = 8, k = 16, lanes = 128,
    acc = <reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [16, 0], [32, 0]]>>
#mfma = #tj.matrix_instr<"mfma_f32_32x32x8bf16_1k", m = 32, n = 32, k = 8, lanes = 64,
    a = <reg = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]]>,
    b = <reg = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]>,
    acc = <reg = [[1, 0], [2, 0], [8, 0], [16, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]>>
#wmma = #tj.matrix_instr<"wmma_f32_16x16x16_bf16", m = 16, n = 16, k = 16, lanes = 32,
    a = <reg = [[0, 1], [0, 2], [0, 4], [0, 8]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]]>,
    b = <reg = [[1, 0], [2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 0]]>,
    acc = <reg = [[2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]>>

// CHECK-LABEL: tj.template @new_forms
tj.template @new_forms {
  // CHECK: tj.param @kv_dtype : type values [f8E4M3FN, f8E5M2]
  tj.param @kv_dtype : type values [f8E4M3FN, f8E5M2]
  // CHECK: tj.param @logits_dtype : type values [f32]
  tj.param @logits_dtype : type values [f32]
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 128 : index
    tj.yield %w : index
  }
  // An MLA latent cache (rank 3, read as K and V) and a DSA indexer fp8 K cache with one f32
  // scale per 128-wide group beside it; 8-bit views and caches; an 8-bit dtype parameter.
  // CHECK: tj.kernel @caches(%latent: !tj.kv_cache<latent, [num_blocks, block_size, 576], bf16, layout = standard>,
  // CHECK-SAME: %index_k: !tj.kv_cache<k, [num_blocks, 64, 128], f8E4M3FN, layout = standard, scale = per_token_group<128>>,
  // CHECK-SAME: %index_scale: !tj.view<[num_blocks, 64, 1], f32>,
  // CHECK-SAME: %k: !tj.kv_cache<k, [num_blocks, 16, num_kv_heads, 128], !tj.dtype<"kv_dtype", 8>, layout = standard, scale = per_tensor>,
  // CHECK-SAME: %v: !tj.kv_cache<v, [num_blocks, 16, num_kv_heads, 128], f8E5M2, layout = shuffled, scale = per_head>,
  // CHECK-SAME: %q8: !tj.view<[16, 128], i8>, %e5: !tj.view<[16, 128], f8E5M2>, %logits: !tj.view<[16, 32], !tj.dtype<"logits_dtype", 32>>)
  tj.kernel @caches(%latent: !tj.kv_cache<latent, [num_blocks, block_size, 576], bf16, layout = standard>,
                    %index_k: !tj.kv_cache<k, [num_blocks, 64, 128], f8E4M3FN, layout = standard, scale = per_token_group<128>>,
                    %index_scale: !tj.view<[num_blocks, 64, 1], f32>,
                    %k: !tj.kv_cache<k, [num_blocks, 16, num_kv_heads, 128], !tj.dtype<"kv_dtype", 8>, layout = standard, scale = per_tensor>,
                    %v: !tj.kv_cache<v, [num_blocks, 16, num_kv_heads, 128], f8E5M2, layout = shuffled, scale = per_head>,
                    %q8: !tj.view<[16, 128], i8>, %e5: !tj.view<[16, 128], f8E5M2>,
                    %logits: !tj.view<[16, 32], !tj.dtype<"logits_dtype", 32>>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    // CHECK: tj.load %{{.*}} -> tensor<16x128xf8E5M2>
    %t = tj.load %e5[%c0, %c0] [16, 128] : !tj.view<[16, 128], f8E5M2> -> tensor<16x128xf8E5M2>
    // CHECK: arith.extf %{{.*}} : tensor<16x128xf8E5M2> to tensor<16x128xf32>
    %f = arith.extf %t : tensor<16x128xf8E5M2> to tensor<16x128xf32>
    // CHECK: tj.load %{{.*}} -> tensor<16x128xi8>
    %i = tj.load %q8[%c0, %c0] [16, 128] : !tj.view<[16, 128], i8> -> tensor<16x128xi8>
    // CHECK: tensor<16x32xf32, #[[SYNC]]>
    %acc = tj.full %zero [16, 32] : f32 -> tensor<16x32xf32, #tj.mma<#sync>>
    // CHECK: tj.reduce max %{{.*}} axis 1 : tensor<16x32xf32, #[[SYNC]]> -> tensor<16xf32, #[[ROWS]]>
    %m = tj.reduce max %acc axis 1 : tensor<16x32xf32, #tj.mma<#sync>> -> tensor<16xf32, #tj.mma_rows<#sync>>
    // CHECK: tensor<64x8xf32, #[[WGMMA]]>
    %w = tj.full %zero [64, 8] : f32 -> tensor<64x8xf32, #tj.mma<#wgmma>>
    // CHECK: tensor<32x64xf32, #[[MFMA]]>
    %x = tj.full %zero [32, 64] : f32 -> tensor<32x64xf32, #tj.mma<#mfma>>
    // CHECK: tensor<16x16xf32, #[[WMMA]]>
    %y = tj.full %zero [16, 16] : f32 -> tensor<16x16xf32, #tj.mma<#wmma>>
    // A bare #tj.mma (no instruction: only ever written by authors) still parses.
    // CHECK: tensor<16x8xf32, #[[BARE]]>
    %z = tj.full %zero [16, 8] : f32 -> tensor<16x8xf32, #tj.mma>
  }
}
