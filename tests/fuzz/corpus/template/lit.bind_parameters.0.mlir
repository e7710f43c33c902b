// tj-bind-parameters on a minimal template: each parameter takes the given value, else the
// target's tuning (a template named like a shipped one takes its rows, conditional ones
// included), else its default; the parameters become constants everywhere and leave the
// template, which keeps their values; constraints keep the names of what they read.
// RUN: tj-opt %s --tj-bind-parameters="target=sm_90 values=tiles=2,dtype=f16,kv_layout=shuffled" | FileCheck %s
// RUN: tj-opt %s --pass-pipeline='builtin.module(tj-bind-parameters{target=sm_90 values=tiles=2,dtype=f16,kv_layout=shuffled})' | FileCheck %s
// RUN: tj-opt %s --tj-bind-parameters="target=sm_90 values=tiles=1" | FileCheck %s --check-prefix=TUNED
// RUN: tj-opt %s --tj-bind-parameters="target=host values=tiles=1,block_n=16" | FileCheck %s --check-prefix=HOST
// The errors name the parameter, the value and the legal values (tilejit compile's messages).
// RUN: not tj-opt %s --tj-bind-parameters="target=sm_90 values=tiles=1,block_n=48" 2>&1 | FileCheck %s --check-prefix=DOMAIN
// RUN: not tj-opt %s --tj-bind-parameters="target=sm_90 values=tiles=1,block_n=wide" 2>&1 | FileCheck %s --check-prefix=NOTINT
// RUN: not tj-opt %s --tj-bind-parameters="target=sm_90 values=tiles=1,dtype=f32" 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not tj-opt %s --tj-bind-parameters="target=sm_90 values=tiles=1,heads=4" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tj-opt %s --tj-bind-parameters="target=sm_90" 2>&1 | FileCheck %s --check-prefix=NOVALUE
// RUN: not tj-opt %s --tj-bind-parameters="target=sm_75 values=tiles=1" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not tj-opt %s --tj-bind-parameters="target=sm_90 values=tiles" 2>&1 | FileCheck %s --check-prefix=SYNTAX

// sm_90's paged_decode rows: block_n 32; min_blocks_per_sm 5, but 0 with the shuffled layout.
// CHECK: tj.template @paged_decode attributes {tj.parameters = {block_n = 32 : i64, dtype = f16, kv_dtype = bf16, kv_layout = "shuffled", min_blocks_per_sm = 0 : i64, tiles = 2 : i64}, tj.target = "sm_90"}
// CHECK-NOT: tj.param
// CHECK: tj.constraint "the shuffled layout needs block_n of at least 32"
// CHECK: %[[N:.*]] = arith.constant 32 : i64
// CHECK: arith.cmpi sge, %[[N]]
// CHECK: %[[SHUFFLED:.*]] = arith.constant true
// CHECK: arith.xori %[[SHUFFLED]]
// CHECK: } {tj.parameters_read = ["block_n", "kv_layout"]}
// CHECK: threads {
// CHECK-NEXT: %[[WARP:.*]] = arith.constant 32 : index
// CHECK-NEXT: tj.yield %[[WARP]]
// CHECK: tj.kernel @paged_decode(%out: !tj.view<[num_seqs, 32], f16>)
// CHECK: arith.constant 2 : index
// CHECK: arith.constant 0 : i32
// CHECK: tj.full %{{.*}} [2, 32] : f32 -> tensor<?x?xf32>

// TUNED: tj.parameters = {block_n = 32 : i64, dtype = bf16, kv_dtype = bf16, kv_layout = "standard", min_blocks_per_sm = 5 : i64, tiles = 1 : i64}, tj.target = "sm_90"
// TUNED: arith.constant false
// TUNED: !tj.view<[num_seqs, 32], bf16>

// The host's own rows (none for min_blocks_per_sm: the default); one lane per program.
// HOST: tj.parameters = {block_n = 16 : i64, dtype = bf16, kv_dtype = bf16, kv_layout = "standard", min_blocks_per_sm = 0 : i64, tiles = 1 : i64}, tj.target = "host"
// HOST: threads {
// HOST-NEXT: arith.constant 1 : index

// DOMAIN: error: parameter 'block_n': value 48 is not allowed for template 'paged_decode'; legal values: 16, 32, 64
// NOTINT: error: parameter 'block_n': 'wide' is not an integer; legal values: 16, 32, 64
// DTYPE: error: parameter 'dtype': value f32 is not allowed for template 'paged_decode'; legal values: f16, bf16
// UNKNOWN: error: unknown parameter 'heads' for template 'paged_decode'; its parameters are: dtype, block_n, kv_layout, kv_dtype, min_blocks_per_sm, tiles
// NOVALUE: error: parameter 'tiles' of template 'paged_decode' has no value: give one with -p tiles=<value> (legal values: 1, 2); target sm_90 has no tuned value for it
// TARGET: error: unknown target 'sm_75'; known targets: sm_80, sm_90, gfx90a, gfx942, gfx950, gfx1100, gfx1201, host
// SYNTAX: error: tj-bind-parameters: value 'tiles' is not name=value
tj.template @paged_decode {
  tj.param @dtype : type values [f16, bf16] default bf16
  tj.param @block_n : int values [16, 32, 64]
  tj.param @kv_layout : string values ["standard", "shuffled"] default "standard"
  tj.param @kv_dtype : type values [f16, bf16, f8E4M3FN, f8E5M2] default bf16
  tj.param @min_blocks_per_sm : int range [0, 32] default 0
  tj.param @tiles : int values [1, 2]
  tj.constraint "the shuffled layout needs block_n of at least 32" {
    %n = tj.param_value @block_n : i64
    %c32 = arith.constant 32 : i64
    %big = arith.cmpi sge, %n, %c32 : i64
    %shuffled = tj.param_equals @kv_layout, "shuffled"
    %true = arith.constant true
    %standard = arith.xori %shuffled, %true : i1
    %ok = arith.ori %standard, %big : i1
    tj.yield %ok : i1
  }
  tj.launch grid {
    %seqs = tj.shape_symbol "num_seqs" : index
    %one = arith.constant 1 : index
    tj.yield %seqs, %one, %one : index, index, index
  } threads {
    %warp = tj.target_value "warp_size" : index
    tj.yield %warp : index
  }
  tj.kernel @paged_decode(%out: !tj.view<[num_seqs, block_n], !tj.dtype<"dtype">>) {
    %tiles = tj.param_value @tiles : index
    %hint = tj.param_value @min_blocks_per_sm : i32
    %zero = arith.constant 0.0 : f32
    %tile = tj.full %zero [tiles, block_n] : f32 -> tensor<?x?xf32>
  }
}
