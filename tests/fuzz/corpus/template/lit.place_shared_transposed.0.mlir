// Shuffled V tiles are placed transposed only where their first token is provably a multiple
// of 8 (a 16-byte piece holds 8 tokens of one dim): the tile starting at a length read from
// memory stays in registers, the one starting at a multiple of 32 is placed, and a dot that
// reads a placed transposed tile as b reads it the other way.
// RUN: tilejit compile %s --target sm_90 --emit specialized --no-cache | FileCheck %s
// RUN: tilejit compile %s --target sm_90 --emit cpp --no-cache | FileCheck %s --check-prefix=CPP
// CHECK: tj.paged_load %vc, %table[%c0] tokens %{{[0-9]+}} limit %c1000 head %c0 [32, 64] : <v,
// CHECK: tj.paged_load %vc, %table[%c0] tokens %c32 limit %c1000 head %c0 [32, 64] {shared_buffer = 0 : i64, shared_slots = 1 : i64, shared_transposed}
// CPP: tj::dot<false>(p, unaligned, acc)
// CPP: tj::dot<true>(p, aligned, s1, async_copies.newerAtLeast(0))
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%vc: !tj.kv_cache<v, [n, 16, 2, 64], bf16, layout = "shuffled">, %table: !tj.view<[s, b], i32>,
               %lens: !tj.view<[s], i32>, %out: !tj.view<[16, 64], f32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %c1000 = arith.constant 1000 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : bf16
    %len32 = tj.load_scalar %lens[%c0] : !tj.view<[s], i32> -> i32
    %len = arith.index_cast %len32 : i32 to index
    %p = tj.full %one [16, 32] : bf16 -> tensor<16x32xbf16>
    %acc = tj.full %zero [16, 64] : f32 -> tensor<16x64xf32>
    %unaligned = tj.paged_load %vc, %table[%c0] tokens %len limit %c1000 head %c0 [32, 64]
        : !tj.kv_cache<v, [n, 16, 2, 64], bf16, layout = "shuffled">, !tj.view<[s, b], i32> -> tensor<32x64xbf16>
    %aligned = tj.paged_load %vc, %table[%c0] tokens %c32 limit %c1000 head %c0 [32, 64]
        : !tj.kv_cache<v, [n, 16, 2, 64], bf16, layout = "shuffled">, !tj.view<[s, b], i32> -> tensor<32x64xbf16>
    %s1 = tj.dot %p, %unaligned, %acc : tensor<16x32xbf16>, tensor<32x64xbf16>, tensor<16x64xf32> -> tensor<16x64xf32>
    %s2 = tj.dot %p, %aligned, %s1 : tensor<16x32xbf16>, tensor<32x64xbf16>, tensor<16x64xf32> -> tensor<16x64xf32>
    tj.store %s2, %out[%c0, %c0] : tensor<16x64xf32>, !tj.view<[16, 64], f32>
  }
}
