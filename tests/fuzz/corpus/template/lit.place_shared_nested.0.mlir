// A tile carried into a nested loop that keeps reading it while the inner loop prefetches
// from it is one chain with two carried values that is not a prefetch shift: slots used in
// turn would overwrite the tile still read, so it stays in registers (only q is placed).
// RUN: tilejit compile %s --target sm_90 --emit specialized --no-cache | FileCheck %s
// CHECK: tj.load %{{.*}} [16, 64] {shared_buffer = 0 : i64, shared_slots = 1 : i64}
// CHECK-NOT: shared_buffer
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%q: !tj.view<[16, 64], bf16>, %kv: !tj.view<[n, 64], bf16>, %out: !tj.view<[16, 32], f32>) {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %qt = tj.load %q[%c0, %c0] [16, 64] : !tj.view<[16, 64], bf16> -> tensor<16x64xbf16>
    %acc0 = tj.full %zero [16, 32] : f32 -> tensor<16x32xf32>
    %a0 = tj.load %kv[%c0, %c0] [32, 64] : !tj.view<[n, 64], bf16> -> tensor<32x64xbf16>
    %r, %ap = scf.for %o = %c0 to %c4 step %c1 iter_args(%acc = %acc0, %a = %a0) -> (tensor<16x32xf32>, tensor<32x64xbf16>) {
      %r2, %bp = scf.for %i = %c0 to %c128 step %c32 iter_args(%acc2 = %acc, %b = %a) -> (tensor<16x32xf32>, tensor<32x64xbf16>) {
        %nx = arith.addi %i, %c32 : index
        %n1 = tj.load %kv[%nx, %c0] [32, 64] : !tj.view<[n, 64], bf16> -> tensor<32x64xbf16>
        %s1 = tj.dot %qt, %a, %acc2 {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
        %s2 = tj.dot %qt, %b, %s1 {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
        scf.yield %s2, %n1 : tensor<16x32xf32>, tensor<32x64xbf16>
      }
      scf.yield %r2, %bp : tensor<16x32xf32>, tensor<32x64xbf16>
    }
    tj.store %r, %out[%c0, %c0] : tensor<16x32xf32>, !tj.view<[16, 32], f32>
  }
}
