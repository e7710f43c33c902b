// tj-deepen-loop-prefetch: a loop marked tj.prefetch_depth = d carries the tiles of steps
// iv .. iv + (d-1)*step, loads step iv + d*step and yields the carried tiles shifted by one;
// the prologue loads steps lb + step .. lb + (d-1)*step. The attribute is consumed.
// RUN: tj-opt %s --split-input-file --tj-deepen-loop-prefetch --verify-diagnostics | FileCheck %s

// CHECK-LABEL: tj.kernel @two_ahead
// CHECK: %[[K0:.*]] = tj.paged_load %cache, %table[%{{.*}}] tokens %c0 limit
// CHECK: %[[ONE:.*]] = arith.muli %c32, %c1
// CHECK: %[[T1:.*]] = arith.addi %c0, %[[ONE]] : index
// CHECK: %[[K1:.*]] = tj.paged_load %cache, %table[%{{.*}}] tokens %[[T1]] limit
// CHECK: scf.for %[[IV:.*]] = %c0 to %{{.*}} step %c32 iter_args(%[[ACC:.*]] = %{{.*}}, %[[K:.*]] = %[[K0]], %[[KA:.*]] = %[[K1]])
// CHECK: %[[TWO:.*]] = arith.muli %c32, %c2
// CHECK: %[[TN:.*]] = arith.addi %[[IV]], %[[TWO]] : index
// CHECK: %[[KN:.*]] = tj.paged_load %cache, %table[%{{.*}}] tokens %[[TN]]
// CHECK: tj.dot %{{.*}}, %[[K]], %[[ACC]]
// CHECK: scf.yield %{{.*}}, %[[KA]], %[[KN]]
// CHECK-NOT: tj.prefetch_depth
tj.template @two_ahead {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 32 : index
    tj.yield %w : index
  }
  tj.kernel @two_ahead(%q: !tj.view<[16, 64], bf16>,
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
    } {tj.prefetch_depth = 2 : i64}
  }
}
