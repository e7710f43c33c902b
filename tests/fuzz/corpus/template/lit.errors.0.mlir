// Bad specializations are rejected before any compile, naming the parameter, the value and
// the legal values; malformed templates give file:line:col diagnostics.
// RUN: not tilejit compile %templates/merge_attn_states.mlir -p head_size=100 --emit specialized --no-cache 2>&1 | FileCheck %s --check-prefix=DOMAIN
// DOMAIN: parameter 'head_size': value 100 is not allowed for template 'merge_attn_states'; legal values: 32, 64, 80, 96, 112, 128, 192, 256, 512
// RUN: not tilejit compile %templates/merge_attn_states.mlir -p dtype=f32 --emit specialized --no-cache 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: parameter 'dtype': value f32 is not allowed for template 'merge_attn_states'; legal values: f16, bf16
// RUN: not tilejit compile %templates/merge_attn_states.mlir -p heads=4 --emit specialized --no-cache 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown parameter 'heads' for template 'merge_attn_states'; its parameters are: dtype, head_size, heads_per_program, num_warps, min_blocks_per_sm
// RUN: not tilejit compile %templates/reshape_and_cache.mlir -p kv_layout=shuffled -p block_size=4 --emit specialized --no-cache 2>&1 | FileCheck %s --check-prefix=CONSTRAINT
// CONSTRAINT: template 'reshape_and_cache' rejects this specialization: the shuffled layout needs block_size to be a multiple of 8 (block_size=4, kv_layout=shuffled)
// RUN: not tilejit compile %templates/paged_decode.mlir -p gqa_ratio=129 --emit specialized --no-cache 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: parameter 'gqa_ratio': value 129 is not allowed for template 'paged_decode'; legal values: 1..128
// RUN: not tilejit compile %templates/paged_decode.mlir -p gqa_ratio=48 -p q_rows=16 -p merge_in_kernel=1 --emit specialized --no-cache 2>&1 | FileCheck %s --check-prefix=GROUP
// GROUP: rejects this specialization: merge_in_kernel counts one program per partition of a (sequence, kv head): it needs the whole GQA group in one program (q_rows >= gqa_ratio) (gqa_ratio=48, merge_in_kernel=1, q_rows=16)
// RUN: not tilejit compile %templates/merge_attn_states.mlir --target sm_75 --emit cpp --no-cache 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: unknown target 'sm_75'; known targets: sm_80, sm_90, gfx90a, gfx942, gfx950, gfx1100, gfx1201, host
// RUN: not tilejit compile %s --emit ir --no-cache 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: malformed template {{.*}}errors.mlir:
// MALFORMED-NEXT: errors.mlir:[[@LINE+2]]:{{[0-9]+}}: error: 'tj.param' op default 7 : i64 is outside the domain 1, 2
tj.template @broken {
  tj.param @n : int values [1, 2] default 7
}
