// The DSA decode templates (candidate_mask, indexer_k_quant_and_cache in both scale formats,
// gather_indexer_k_quant_cache) compile with their tuned values for sm_90, sm_80 and the host,
// and for the five AMD targets within their budgets: no scratch, no spills (the checks of
// check_compile_matrix.sh on this case list). Block sizes 1 and 80 (no multiple of 16) too.
// RUN: for t in sm_90 sm_80 host; do for c in candidate_mask indexer_k_quant_and_cache gather_indexer_k_quant_cache; do tilejit compile $c --target $t --emit binary --no-cache -o %t.$t.$c.bin || exit 1; done; done
// RUN: tilejit compile indexer_k_quant_and_cache --target sm_90 -p block_size=1 -p scale_format=ue8m0 --emit binary --no-cache -o %t.b1.bin
// RUN: tilejit compile gather_indexer_k_quant_cache --target sm_90 -p block_size=80 --emit binary --no-cache -o %t.b80.bin
// RUN: tilejit compile candidate_mask --target sm_90 -p block_size=8 -p row_repeat=2 -p has_starts=1 --emit binary --no-cache -o %t.cm.bin
// RUN: env TJ_COMPILE_CASES="candidate_mask candidate_mask:has_starts=1 indexer_k_quant_and_cache indexer_k_quant_and_cache:scale_format=ue8m0 indexer_k_quant_and_cache:block_size=1 gather_indexer_k_quant_cache gather_indexer_k_quant_cache:block_size=24" sh %S/check_compile_matrix.sh %templates/device %t %S/known_spills.txt | FileCheck %s
// CHECK-DAG: gfx942 candidate_mask sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds=0 scratch=0 spills=0
// CHECK-DAG: gfx950 indexer_k_quant_and_cache:scale_format=ue8m0 sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx90a gather_indexer_k_quant_cache:block_size=24 sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=0 lds=0 scratch=0 spills=0
// CHECK-DAG: gfx1100 indexer_k_quant_and_cache:block_size=1 sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx1201 candidate_mask:has_starts=1 sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds=0 scratch=0 spills=0
// CHECK: check_compile_matrix: all cases compile within their budgets
