// The HIP device library compiles every shipped template for the five AMD targets within
// their budgets (check_compile_matrix.sh says what is checked; known_spills.txt lists the
// cases that still spill). Compile-only: nothing here runs on AMD silicon.
// RUN: sh %S/check_compile_matrix.sh %templates/device %t %S/known_spills.txt | FileCheck %s
// CHECK-DAG: gfx942 paged_decode sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds=21248 scratch=0 spills=0
// CHECK-DAG: gfx942 merge_attn_states sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx950 reshape_and_cache sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx1201 paged_decode sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx1100 reshape_and_cache sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds=0 scratch=0 spills=0
// CHECK-DAG: gfx1201 paged_decode_reduce sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds={{[0-9]+}} scratch=0 spills=0
// fp8 caches (paged_decode reading, reshape_and_cache writing), both formats and scale kinds:
// CHECK-DAG: gfx942 paged_decode:kv_dtype=f8E4M3FN sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx950 paged_decode:kv_dtype=f8E5M2,kv_scale=per_head sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx1100 paged_decode:kv_dtype=f8E4M3FN,kv_scale=per_head,sinks=1,gqa_ratio=71 sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx1201 paged_decode:kv_dtype=f8E5M2,kv_scale=per_head sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx90a reshape_and_cache:kv_dtype=f8E4M3FN sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds=0 scratch=0 spills=0
// CHECK-DAG: KNOWN gfx942 reshape_and_cache:kv_dtype=f8E5M2,kv_scale=per_head: scratch 0, spills sgpr {{[0-9]+}} vgpr 0
// CHECK: check_compile_matrix: all cases compile within their budgets
