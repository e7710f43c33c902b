// The wait of a dot on placed tiles is a constant where the emitter can count the copy groups
// committed since its operands' on every path: a loop-carried tile's first iteration (after
// the copies before the loop) and its later ones (after those at the end of the body); a copy
// nested in a region that may not run is not counted. Where it cannot (a tile that leaves the
// loop as its result), the distance is worked out at run time.
// RUN: tilejit compile %s --target sm_90 --emit cpp --no-cache | FileCheck %s
// CHECK: tj::AsyncCopies async_copies;
// CHECK: for (
// k: the next tile's copy, committed before the dot (nothing follows it in the body); q: k0's
// and that one.
// CHECK: tj::dot<true>(qt, k, acc, async_copies.newerAtLeast(1))
// CHECK: if (on) {
// CHECK: tj::dot<true>(qt, extra, s1, async_copies.newerAtLeast(0))
// After the conditional copy k still counts 1 (that group may not be committed).
// CHECK: tj::dot<true>(qt, k, s2, async_copies.newerAtLeast(1))
// The loop's result: at run time.
// CHECK: tj::dot<true>(qt, k, acc, async_copies)
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%q: !tj.view<[16, 64], bf16>, %kv: !tj.view<[n, 64], bf16>, %out: !tj.view<[16, 32], f32>,
               %flag: i32) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %qt = tj.load %q[%c0, %c0] [16, 64] : !tj.view<[16, 64], bf16> -> tensor<16x64xbf16>
    %acc0 = tj.full %zero [16, 32] : f32 -> tensor<16x32xf32>
    %k0 = tj.load %kv[%c0, %c0] [32, 64] : !tj.view<[n, 64], bf16> -> tensor<32x64xbf16>
    %r, %k_past = scf.for %i = %c0 to %c128 step %c32 iter_args(%acc = %acc0, %k = %k0) -> (tensor<16x32xf32>, tensor<32x64xbf16>) {
      %next = arith.addi %i, %c32 : index
      %k_next = tj.load %kv[%next, %c0] [32, 64] : !tj.view<[n, 64], bf16> -> tensor<32x64xbf16>
      %s1 = tj.dot %qt, %k, %acc {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
      %c0_i32 = arith.constant 0 : i32
      %on = arith.cmpi ne, %flag, %c0_i32 : i32
      %s2 = scf.if %on -> tensor<16x32xf32> {
        %extra = tj.load %kv[%c0, %c0] [32, 64] : !tj.view<[n, 64], bf16> -> tensor<32x64xbf16>
        %e = tj.dot %qt, %extra, %s1 {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
        scf.yield %e : tensor<16x32xf32>
      } else {
        scf.yield %s1 : tensor<16x32xf32>
      }
      %s3 = tj.dot %qt, %k, %s2 {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
      scf.yield %s3, %k_next : tensor<16x32xf32>, tensor<32x64xbf16>
    }
    %final = tj.dot %qt, %k_past, %r {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
    tj.store %final, %out[%c0, %c0] : tensor<16x32xf32>, !tj.view<[16, 32], f32>
  }
}
