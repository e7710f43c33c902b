
// Depth 1 changes nothing but the attribute.
// CHECK-LABEL: tj.kernel @one_ahead
// CHECK-COUNT-2: tj.paged_load
// CHECK-NOT: tj.paged_load
// CHECK-NOT: tj.prefetch_depth
tj.template @one_ahead {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 32 : index
    tj.yield %w : index
  }
  tj.kernel @one_ahead(%q: !tj.view<[16, 64], bf16>,
                       %cache: !tj.kv_cache<k, [num_blocks, 16, 2, 64], bf16, layout = "standard">,
                       %table: !tj.view<[4, 64], i32>, %lens: !tj.view<[4], i32>) {
    %seq = tj.program_id 0 : index
    %head = tj.program_id 1 : index
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %len32 = tj.load_scalar %lens[%seq] : !tj.view<[4], i32> -> i32
    %len = arith.index_cast %len32 : i32 to index
    %q_tile = tj.load %q[%c0, %c0] [16, 64] : !tj.view<[16, 64], bf16> -> tensor<16x64xbf16>
    %zero = arith.constant 0.0 : f32
    %acc0 = tj.full %zero [16, 32] : f32 -> tensor<16x32xf32>
    %k0 = tj.paged_load %cache, %table[%seq] tokens %c0 limit %len head %head [32, 64] : !tj.kv_cache<k, [num_blocks, 16, 2, 64], bf16, layout = "standard">, !tj.view<[4, 64], i32> -> tensor<32x64xbf16>
    %acc, %k_last = scf.for %t = %c0 to %len step %c32 iter_args(%acc_i = %acc0, %k = %k0) -> (tensor<16x32xf32>, tensor<32x64xbf16>) {
      %t_next = arith.addi %t, %c32 : index
      %k_next = tj.paged_load %cache, %table[%seq] tokens %t_next limit %len head %head [32, 64] : !tj.kv_cache<k, [num_blocks, 16, 2, 64], bf16, layout = "standard">, !tj.view<[4, 64], i32> -> tensor<32x64xbf16>
      %s = tj.dot %q_tile, %k, %acc_i {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
      scf.yield %s, %k_next : tensor<16x32xf32>, tensor<32x64xbf16>
    } {tj.prefetch_depth = 1 : i64}
  }
}
