// The MLA decode templates (mla_decode, mla_decode_reduce) compile with their tuned values for
// sm_90, sm_80 and the host, at block sizes 1, 16 and 256, 32 q rows and 4 query tokens too, and for the five
// AMD targets: no scratch and no spills on gfx90a, gfx942 and gfx950; the wave32 targets
// (gfx1100, gfx1201) still spill (known_spills.txt says so and reports their scratch).
// RUN: for t in sm_90 sm_80 host; do for c in mla_decode mla_decode_reduce; do tilejit compile $c --target $t --emit binary --no-cache -o %t.$t.$c.bin || exit 1; done; done
// RUN: tilejit compile mla_decode --target sm_90 -p block_size=1 --emit binary --no-cache -o %t.b1.bin
// RUN: tilejit compile mla_decode --target sm_90 -p block_size=16 -p q_rows=32 --emit binary --no-cache -o %t.b16.bin
// RUN: tilejit compile mla_decode --target sm_90 -p block_size=256 --emit binary --no-cache -o %t.b256.bin
// RUN: tilejit compile mla_decode --target sm_90 -p q_len=4 --emit binary --no-cache -o %t.q4.bin
// RUN: tilejit compile mla_decode_reduce --target sm_90 -p q_len=4 --emit binary --no-cache -o %t.r4.bin
// RUN: env TJ_COMPILE_CASES="mla_decode mla_decode:block_size=16 mla_decode:q_len=4 mla_decode_reduce" sh %S/check_compile_matrix.sh %templates/device %t %S/known_spills.txt | FileCheck %s
// CHECK-DAG: gfx90a mla_decode sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr={{[0-9]+}} lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx942 mla_decode:block_size=16 sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr={{[0-9]+}} lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx942 mla_decode:q_len=4 sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr={{[0-9]+}} lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: gfx950 mla_decode sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr={{[0-9]+}} lds={{[0-9]+}} scratch=0 spills=0
// CHECK-DAG: KNOWN gfx1100 mla_decode: scratch {{[0-9]+}}, spills sgpr 0 vgpr {{[0-9]+}}
// CHECK-DAG: KNOWN gfx1201 mla_decode:block_size=16: scratch {{[0-9]+}}, spills sgpr 0 vgpr {{[0-9]+}}
// CHECK-DAG: gfx1100 mla_decode_reduce sgpr={{[0-9]+}} vgpr={{[0-9]+}} agpr=none lds=0 scratch=0 spills=0
// CHECK: check_compile_matrix: all cases compile within their budgets
