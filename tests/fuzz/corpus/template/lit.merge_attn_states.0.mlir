// The specializer's passes one at a time (the template has no dot: the CUDA passes have
// nothing to do, so this is what `tilejit compile --emit specialized` prints).
// RUN: tj-opt %templates/merge_attn_states.mlir --tj-bind-parameters="target=sm_90 values=heads_per_program=4,head_size=64,dtype=f16" --tj-check-constraints --tj-refine-tile-shapes -canonicalize | FileCheck %s
// RUN: tj-opt %templates/merge_attn_states.mlir --tj-bind-parameters=target=host --tj-check-constraints --tj-refine-tile-shapes -canonicalize | FileCheck %s --check-prefix=HOST

// Parameters become constants and leave the template; tiles get static shapes; the dtype
// placeholder is bound everywhere (types of views and tiles).
// CHECK: tj.template @merge_attn_states attributes {tj.parameters = {dtype = f16, head_size = 64 : i64, heads_per_program = 4 : i64, min_blocks_per_sm = 10 : i64, num_warps = 2 : i64}, tj.target = "sm_90"}
// CHECK-NOT: tj.param
// CHECK-NOT: !tj.dtype
// CHECK: tj.launch grid
// CHECK: arith.ceildivsi %{{.*}}, %c4
// CHECK: threads
// CHECK: arith.constant 64 : index
// CHECK: tj.kernel @merge_attn_states(%output: !tj.view<[num_tokens, num_heads, 64], f16>
// CHECK: tj.load {{.*}} [4, 1] {{.*}} -> tensor<4x1xf32>
// CHECK: tj.load {{.*}} [4, 64] {{.*}} -> tensor<4x64xf16>
// CHECK: tj.broadcast {{.*}} : tensor<4x1xf32> -> tensor<4x64xf32>

// The host target takes its own tuned values.
// HOST: tj.parameters = {dtype = bf16, head_size = 128 : i64, heads_per_program = 8 : i64, min_blocks_per_sm = 0 : i64, num_warps = 1 : i64}, tj.target = "host"
// HOST: tensor<8x128xbf16>
