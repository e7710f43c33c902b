// The author's loop: `tilejit run FILE` compiles and checks FILE whatever it is called (the op is
// the one launching the template FILE declares), prints the metric and its tolerance, and a
// mutated kernel fails with exit 1; a file that is not a template is an error naming it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cp %templates/merge_attn_states.mlir %t/m0.mlir
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit run %t/m0.mlir --target host --iterations 0 | FileCheck %s --check-prefix=COPY
// RUN: python3 %S/Inputs/mutate_template.py %templates/merge_attn_states.mlir %t/biased.mlir '%%merged_out = arith.truncf %%merged :' '%%bias_c = arith.constant 1.005 : f32\n    %%bias_t = tj.full %%bias_c [heads_per_program, head_size] : f32 -> tensor<?x?xf32>\n    %%biased = arith.mulf %%merged, %%bias_t : tensor<?x?xf32>\n    %%merged_out = arith.truncf %%biased :'
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run %t/biased.mlir --target host --iterations 0 | FileCheck %s --check-prefix=BIASED
// RUN: python3 %S/Inputs/mutate_template.py %templates/merge_attn_states.mlir %t/lse.mlir '%%s_raw = tj.load %%suffix_lse' '%%s_raw = tj.load %%prefix_lse'
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run %t/lse.mlir --target host --iterations 0 | FileCheck %s --check-prefix=FAILS
// RUN: python3 %S/Inputs/mutate_template.py %templates/merge_attn_states.mlir %t/mask.mlir '%%p_part = arith.select %%p_w_zero, %%zeros, %%p_scaled : tensor<?x?xi1>, tensor<?x?xf32>' '%%p_part = arith.addf %%p_scaled, %%zeros : tensor<?x?xf32>'
// RUN: not env TILEJIT_CACHE_DIR=%t/cache tilejit run %t/mask.mlir --target host --iterations 0 | FileCheck %s --check-prefix=FAILS
// RUN: echo 'this is not mlir at all' > %t/paged_decode.mlir
// RUN: not tilejit run %t/paged_decode.mlir --target host 2>&1 | FileCheck %s --check-prefix=NOT-MLIR
// RUN: not tilejit run paged_decode --target host --template paged_decode_reduce=%t/paged_decode.mlir 2>&1 | FileCheck %s --check-prefix=NOT-MLIR
// RUN: not tilejit run %t/m0.mlir --check flash_decode 2>&1 | FileCheck %s --check-prefix=CHECK-OP
// RUN: not tilejit run paged_decode --template paged_decode_reduce=%t/m0.mlir 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: sed 's/@merge_attn_states/@paged_decode_reduce/' %t/m0.mlir > %t/reduce.mlir
// RUN: not tilejit run merge_attn_states --template paged_decode_reduce=%t/reduce.mlir 2>&1 | FileCheck %s --check-prefix=UNUSED
// COPY: merge_attn_states: @merge_attn_states from {{.*}}m0.mlir
// COPY: op {{ *}}cache {{ *}}check {{ *}}error {{ *}}tolerance
// COPY: merge_attn_states {{ *}}miss {{ *}}pass {{.*}} 1.0e-02 {{.*}}mean rel bias
// BIASED: merge_attn_states {{ *}}miss {{ *}}FAIL {{.*}} BIASED
// FAILS: merge_attn_states {{ *}}miss {{ *}}FAIL
// NOT-MLIR: error: '{{.*}}paged_decode.mlir' declares no template (a tj.template @name { ... } op): not a tj template
// CHECK-OP: error: --check flash_decode: no such op
// OTHER: error: --template paged_decode_reduce={{.*}}m0.mlir: the file declares @merge_attn_states, not @paged_decode_reduce
// UNUSED: error: --template paged_decode_reduce={{.*}}: no op being run launches a kernel @paged_decode_reduce
