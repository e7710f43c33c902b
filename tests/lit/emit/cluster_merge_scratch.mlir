// A cluster merge in a kernel with no tiles in shared memory stages its partial in the
// library's scratch, which is sized for it ([16, 64] f32: 4 KB), instead of over placed tiles.
// RUN: tilejit compile %s --target sm_90 --emit cpp --no-cache | FileCheck %s
// CHECK: #define TJ_SMEM_BYTES 4096
// CHECK: #define TJ_CLUSTER_PROGRAMS 2
// CHECK: tj::cluster_merge_store<TJ_CLUSTER_PROGRAMS, false>(args.out, {{.*}}, partial, lse, c1);
tj.template @merge_in_scratch {
  tj.param @cluster_size : int values [2] default 2
  tj.launch grid {
    %one = arith.constant 1 : index
    %two = arith.constant 2 : index
    tj.yield %one, %one, %two : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @merge_in_scratch(%out: !tj.view<[n, 64], bf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %partial = tj.full %zero [16, 64] : f32 -> tensor<16x64xf32>
    %lse = tj.full %zero [16] : f32 -> tensor<16xf32>
    tj.cluster_merge_store %partial, %lse count %c1 into %out[%c0, %c0] : tensor<16x64xf32>, tensor<16xf32>, !tj.view<[n, 64], bf16>
  }
}
