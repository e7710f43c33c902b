// The paged-decode kernel with cluster_size 8 on sm_90: the kernel is declared in clusters of
// 8 programs along z, the merge goes through tj::cluster_merge_store (its partial and LSEs in
// the dot's own register layouts, no conversion), the [16, 128] f32 partial is staged over the
// placed K/V tiles (36 KB), so the scratch keeps the size of the kernel without clusters
// (2 KB, the dot's staging), and no partial is written to global memory. The kernel starts
// with the merge's hook (tj::cluster_merge_begin, typed by the tiles it merges: the library's
// merge by push sets up its barriers there in clusters of 2). Targets without clusters refuse
// it.
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p q_rows=16 -p block_n=32 -p partition_size=64 -p num_warps=4 -p cluster_size=8 --emit cpp --no-cache | FileCheck %s
// CHECK: #define TJ_SMEM_BYTES 2048
// CHECK: #define TJ_CLUSTER_PROGRAMS 8
// CHECK: TJ_KERNEL_ENTRY(
// CHECK-NEXT: tj::AsyncCopies
// CHECK-NEXT: tj::RowExchange
// CHECK-NEXT: tj::cluster_merge_begin<TJ_CLUSTER_PROGRAMS, tj::MmaTile<float, 16, 128>, tj::MmaRows<float, 16>>();
// CHECK-NOT: tj::store({{.*}}args.partial_out
// CHECK: const tj::MmaTile<float, 16, 128> normalized =
// CHECK: const tj::MmaRows<float, 16> lse =
// CHECK-NOT: convert_layout
// CHECK: tj::cluster_merge_store<TJ_CLUSTER_PROGRAMS, true>(args.output, {{.*}}, normalized, lse, used_here);
// CHECK-NOT: tj::store({{.*}}args.partial_out
// RUN: tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p q_rows=16 -p block_n=32 -p partition_size=64 -p num_warps=4 --emit cpp --no-cache | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: TJ_CLUSTER_PROGRAMS
// PLAIN-NOT: cluster_merge_begin
// PLAIN-NOT: cluster_merge_store
// RUN: not tilejit compile %templates/paged_decode.mlir --target sm_80 -p gqa_ratio=4 -p q_rows=16 -p block_n=32 -p partition_size=64 -p num_warps=4 -p cluster_size=2 --emit cpp --no-cache 2>&1 | FileCheck %s --check-prefix=NOCLUSTER
// NOCLUSTER: cluster_size 2: target sm_80 has no thread-block clusters (cluster_size must be 1)
// RUN: not tilejit compile %templates/paged_decode.mlir --target sm_90 -p gqa_ratio=4 -p q_rows=16 -p block_n=32 -p partition_size=64 -p num_warps=4 -p cluster_size=2 -p merge_in_kernel=1 --emit cpp --no-cache 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: merge_in_kernel and cluster_size > 1 are two ways to merge: pick one
// A kernel that merges through a cluster but runs in none is refused by name.
// RUN: not tilejit compile %s --target sm_90 --emit cpp --no-cache 2>&1 | FileCheck %s --check-prefix=NOTCLUSTERED
// NOTCLUSTERED: template 'lone_merge' merges through a thread-block cluster (tj.cluster_merge_store) but is specialized with cluster_size 1; it needs 2 or more
tj.template @lone_merge {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @lone_merge(%out: !tj.view<[n, 64], bf16>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %partial = tj.full %zero [16, 64] : f32 -> tensor<16x64xf32>
    %lse = tj.full %zero [16] : f32 -> tensor<16xf32>
    tj.cluster_merge_store %partial, %lse count %c1 into %out[%c0, %c0] : tensor<16x64xf32>, tensor<16xf32>, !tj.view<[n, 64], bf16>
  }
}
