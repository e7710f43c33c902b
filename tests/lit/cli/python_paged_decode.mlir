// tilejit.PagedDecode (Python, ctypes over the C ABI's tj_paged_decode_*) on the CPU device:
// both kernels from one call, then the split-K kernel merging itself (merge_in_kernel=1),
// checked against a float64 reference with NaN in unowned blocks and past each sequence's
// end; bad parameters and shapes are errors that name the problem.
// RUN: rm -rf %t.cache
// RUN: env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 %S/Inputs/paged_decode_capi.py | FileCheck %s
// CHECK: partition_size 64 max_partitions 2 {}
// CHECK-NEXT: run 0 length 77 rel L-inf ok arrivals [0, 0, 0, 0]
// CHECK-NEXT: run 1 length 70 rel L-inf ok arrivals [0, 0, 0, 0]
// CHECK-NEXT: partition_size 64 max_partitions 2 {'merge_in_kernel': 1}
// CHECK-NEXT: run 0 length 77 rel L-inf ok arrivals [0, 0, 0, 0]
// CHECK-NEXT: run 1 length 70 rel L-inf ok arrivals [0, 0, 0, 0]
// CHECK-NEXT: one-partition workspace, merge_in_kernel 0 arrivals [0, 0, 0, 0]
// CHECK-NEXT: one-partition workspace, merge_in_kernel 1 arrivals [0, 0, 0, 0]
// CHECK-NEXT: one-partition workspace, paths agree: True
// CHECK-NEXT: error dtype parameter 'dtype': value f32 is not allowed for template 'paged_decode'; legal values: f16, bf16
// CHECK-NEXT: error head parameter 'head_size': value 100 is not allowed for template 'paged_decode'
// CHECK-NEXT: error shape argument 'query' (#4) dim 2 is 32 but must be 64
