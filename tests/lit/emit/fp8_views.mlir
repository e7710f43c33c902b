// fp8 views, tiles and caches (and a latent cache): the emitter names the device library's fp8 storage types, and the
// CUDA (nvrtc, sm_90) and host libraries compile their conversions.
// RUN: tilejit compile %s --target sm_90 --emit cpp --no-cache | FileCheck %s
// RUN: tilejit compile %s --target sm_90 -p dtype=f8E5M2 --emit cpp --no-cache | FileCheck %s --check-prefix=E5M2
// RUN: tilejit compile %s --target sm_90 --emit binary --no-cache -o %t.cubin
// RUN: tilejit compile %s --target sm_90 -p dtype=f8E5M2 --emit binary --no-cache -o %t.e5m2.cubin
// RUN: tilejit compile %s --target host --emit binary --no-cache -o %t.so
// CHECK: tj::View<tj::f8e4m3, 2> x;
// CHECK: tj::View<float, 2> y;
// CHECK: tj::View<tj::f8e4m3, 2> z;
// CHECK: tj::View<tj::f8e4m3, 4> cache;
// CHECK: tj::View<tj::bf16, 3> latent;
// E5M2: tj::View<tj::f8e5m2, 2> x;
// Binding keeps a cache's scale and binds its 8-bit element type.
// RUN: tilejit compile %s --target sm_90 --emit specialized --no-cache | FileCheck %s --check-prefix=SPEC
// SPEC: %cache: !tj.kv_cache<k, [num_blocks, 16, num_kv_heads, 64], f8E4M3FN, layout = standard, scale = per_tensor>
// SPEC-SAME: %latent: !tj.kv_cache<latent, [num_blocks, 16, 576], bf16, layout = standard>

tj.template @fp8_scale {
  tj.param @dtype : type values [f8E4M3FN, f8E5M2] default f8E4M3FN
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 128 : index
    tj.yield %w : index
  }
  // z = fp8(2 * float(x)), y = float(x)
  tj.kernel @fp8_scale(%x: !tj.view<[16, 64], !tj.dtype<"dtype", 8>>, %y: !tj.view<[16, 64], f32>,
                       %z: !tj.view<[16, 64], !tj.dtype<"dtype", 8>>,
                       %cache: !tj.kv_cache<k, [num_blocks, 16, num_kv_heads, 64], !tj.dtype<"dtype", 8>, layout = standard, scale = per_tensor>,
                       %latent: !tj.kv_cache<latent, [num_blocks, 16, 576], bf16, layout = standard>) {
    %c0 = arith.constant 0 : index
    %two = arith.constant 2.0 : f32
    %t = tj.load %x[%c0, %c0] [16, 64] : !tj.view<[16, 64], !tj.dtype<"dtype", 8>> -> tensor<16x64x!tj.dtype<"dtype", 8>>
    %f = arith.extf %t : tensor<16x64x!tj.dtype<"dtype", 8>> to tensor<16x64xf32>
    tj.store %f, %y[%c0, %c0] : tensor<16x64xf32>, !tj.view<[16, 64], f32>
    %s = tj.full %two [16, 64] : f32 -> tensor<16x64xf32>
    %g = arith.mulf %f, %s : tensor<16x64xf32>
    %h = arith.truncf %g : tensor<16x64xf32> to tensor<16x64x!tj.dtype<"dtype", 8>>
    tj.store %h, %z[%c0, %c0] : tensor<16x64x!tj.dtype<"dtype", 8>>, !tj.view<[16, 64], !tj.dtype<"dtype", 8>>
  }
}
