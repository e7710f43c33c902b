// A placed load copies whole 16-byte rows (load_shared<..., true>) only when masked rows may
// be zero: with `other` 1.0 it keeps the element path that writes `other`; the unmasked K tile
// (no other) copies whole rows.
// RUN: tilejit compile %s --target sm_90 --emit cpp --no-cache | FileCheck %s
// CHECK: tj::load_shared<16, 64, 0, 1, 0>(async_copies, args.q
// CHECK: tj::load_shared<32, 64, 1, 1, 2048, true>(async_copies, args.kv
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%q: !tj.view<[n, 64], bf16>, %kv: !tj.view<[32, 64], bf16>, %out: !tj.view<[16, 32], f32>) {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : bf16
    %zero = arith.constant 0.0 : f32
    %qt = tj.load %q[%c0, %c0] other %one : bf16 [16, 64] : !tj.view<[n, 64], bf16> -> tensor<16x64xbf16>
    %kt = tj.load %kv[%c0, %c0] [32, 64] : !tj.view<[32, 64], bf16> -> tensor<32x64xbf16>
    %acc = tj.full %zero [16, 32] : f32 -> tensor<16x32xf32>
    %s = tj.dot %qt, %kt, %acc {trans_b} : tensor<16x64xbf16>, tensor<32x64xbf16>, tensor<16x32xf32> -> tensor<16x32xf32>
    tj.store %s, %out[%c0, %c0] : tensor<16x32xf32>, !tj.view<[16, 32], f32>
  }
}
