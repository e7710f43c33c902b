// tj-fold-exact-float-round-trips: truncf(extf(x)) becomes one extf where the narrow type
// holds every value of x's type (fp8 codes into bf16 or f16); a round trip that can round
// (f16 through f32 to bf16: range; bf16 to f16: precision) stays as it is.
// RUN: tj-opt %s --tj-fold-exact-float-round-trips | FileCheck %s

// CHECK-LABEL: tj.kernel @round_trips
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : tensor<16x64xf8E4M3FN> to tensor<16x64xbf16>
// CHECK-NEXT: tj.store %[[A]]
// CHECK: %[[B:.*]] = arith.extf %{{.*}} : tensor<16x64xf8E5M2> to tensor<16x64xf16>
// CHECK-NEXT: tj.store %[[B]]
// CHECK: arith.extf %{{.*}} : tensor<16x64xf16> to tensor<16x64xf32>
// CHECK-NEXT: arith.truncf %{{.*}} : tensor<16x64xf32> to tensor<16x64xbf16>
// CHECK: arith.extf %{{.*}} : tensor<16x64xbf16> to tensor<16x64xf32>
// CHECK-NEXT: arith.truncf %{{.*}} : tensor<16x64xf32> to tensor<16x64xf16>
tj.template @round_trips {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %w = arith.constant 32 : index
    tj.yield %w : index
  }
  tj.kernel @round_trips(%e4m3: !tj.view<[16, 64], f8E4M3FN>, %e5m2: !tj.view<[16, 64], f8E5M2>,
                         %h: !tj.view<[16, 64], f16>, %b: !tj.view<[16, 64], bf16>,
                         %out_b: !tj.view<[16, 64], bf16>, %out_h: !tj.view<[16, 64], f16>) {
    %c0 = arith.constant 0 : index
    %x = tj.load %e4m3[%c0, %c0] [16, 64] : !tj.view<[16, 64], f8E4M3FN> -> tensor<16x64xf8E4M3FN>
    %x32 = arith.extf %x : tensor<16x64xf8E4M3FN> to tensor<16x64xf32>
    %xb = arith.truncf %x32 : tensor<16x64xf32> to tensor<16x64xbf16>
    tj.store %xb, %out_b[%c0, %c0] : tensor<16x64xbf16>, !tj.view<[16, 64], bf16>
    %y = tj.load %e5m2[%c0, %c0] [16, 64] : !tj.view<[16, 64], f8E5M2> -> tensor<16x64xf8E5M2>
    %y32 = arith.extf %y : tensor<16x64xf8E5M2> to tensor<16x64xf32>
    %yh = arith.truncf %y32 : tensor<16x64xf32> to tensor<16x64xf16>
    tj.store %yh, %out_h[%c0, %c0] : tensor<16x64xf16>, !tj.view<[16, 64], f16>
    %u = tj.load %h[%c0, %c0] [16, 64] : !tj.view<[16, 64], f16> -> tensor<16x64xf16>
    %u32 = arith.extf %u : tensor<16x64xf16> to tensor<16x64xf32>
    %ub = arith.truncf %u32 : tensor<16x64xf32> to tensor<16x64xbf16>
    tj.store %ub, %out_b[%c0, %c0] : tensor<16x64xbf16>, !tj.view<[16, 64], bf16>
    %v = tj.load %b[%c0, %c0] [16, 64] : !tj.view<[16, 64], bf16> -> tensor<16x64xbf16>
    %v32 = arith.extf %v : tensor<16x64xbf16> to tensor<16x64xf32>
    %vh = arith.truncf %v32 : tensor<16x64xf32> to tensor<16x64xf16>
    tj.store %vh, %out_h[%c0, %c0] : tensor<16x64xf16>, !tj.view<[16, 64], f16>
  }
}
