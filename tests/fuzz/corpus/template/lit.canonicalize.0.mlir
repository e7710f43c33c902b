// What -canonicalize does to tj ops and bound parameters. tj ops have no folders or
// canonicalization patterns of their own: tj.param_value, tj.param_equals and
// tj.target_value stay until tj-bind-parameters replaces them (dead ones go: they are pure),
// tj.param and tj.constraint stay. Once bound, the arithmetic around the constants folds:
// constraints fold to one constant, grids to constants and shape symbols, loops whose trip
// count became one are inlined, and tile ops (tj.full, tj.range) stay as they are where used.
// RUN: tj-opt %s -canonicalize | FileCheck %s
// RUN: tj-opt %s --tj-bind-parameters="target=sm_90 values=rows=1" -canonicalize | FileCheck %s --check-prefix=BOUND
// RUN: tj-opt %s --tj-bind-parameters="target=sm_90 values=rows=4" -canonicalize | FileCheck %s --check-prefix=LOOP

// CHECK: tj.param @rows
// CHECK: tj.param @layout
// CHECK: tj.constraint "rows fit in a warp"
// CHECK: tj.param_value @rows : index
// CHECK: tj.target_value "warp_size" : index
// CHECK: arith.cmpi ule
// CHECK: tj.launch grid
// CHECK: arith.ceildivsi
// CHECK: tj.kernel @canonical
// CHECK-NOT: tj.param_value @unused
// CHECK: tj.param_equals @layout, "shuffled"
// CHECK: tj.param_value @rows : index
// CHECK: scf.for
// CHECK: tj.full
// CHECK-NOT: tj.full
// CHECK: tj.range

// BOUND: tj.template @canonical attributes {tj.parameters = {layout = "standard", rows = 1 : i64, unused = 3 : i64}
// BOUND: tj.constraint "rows fit in a warp" {
// BOUND-NEXT: %[[TRUE:.*]] = arith.constant true
// BOUND-NEXT: tj.yield %[[TRUE]] : i1
// BOUND: tj.launch grid {
// BOUND-DAG: %[[SEQS:.*]] = tj.shape_symbol "num_seqs" : index
// BOUND-DAG: %[[ONE:.*]] = arith.constant 1 : index
// BOUND: tj.yield %[[SEQS]], %[[ONE]], %[[ONE]] : index, index, index
// BOUND: tj.kernel @canonical
// BOUND-NOT: tj.param_equals
// BOUND-NOT: scf.for
// BOUND: tj.full %{{.*}} [1, 16]
// BOUND-NOT: tj.full
// BOUND: tj.range
// BOUND: tj.store_scalar

// LOOP: tj.launch grid {
// LOOP: %[[FOUR:.*]] = arith.constant 4 : index
// LOOP: arith.ceildivsi %{{.*}}, %[[FOUR]]
// LOOP: scf.for
tj.template @canonical {
  tj.param @rows : int values [1, 4]
  tj.param @unused : int values [3] default 3
  tj.param @layout : string values ["standard", "shuffled"] default "standard"
  tj.constraint "rows fit in a warp" {
    %rows = tj.param_value @rows : index
    %warp = tj.target_value "warp_size" : index
    %ok = arith.cmpi ule, %rows, %warp : index
    tj.yield %ok : i1
  }
  tj.launch grid {
    %seqs = tj.shape_symbol "num_seqs" : index
    %rows = tj.param_value @rows : index
    %blocks = arith.ceildivsi %seqs, %rows : index
    %one = arith.constant 1 : index
    tj.yield %blocks, %one, %one : index, index, index
  } threads {
    %warp = tj.target_value "warp_size" : index
    tj.yield %warp : index
  }
  tj.kernel @canonical(%out: !tj.view<[num_seqs], f32>, %tiles: !tj.view<[num_seqs, 16], f32>,
                       %columns: !tj.view<[16], i32>) {
    %dead = tj.param_value @unused : index
    %shuffled = tj.param_equals @layout, "shuffled"
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %rows = tj.param_value @rows : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %picked = arith.select %shuffled, %one, %zero : f32
    %sum = scf.for %i = %c0 to %rows step %c1 iter_args(%acc = %picked) -> (f32) {
      %next = arith.addf %acc, %one : f32
      scf.yield %next : f32
    }
    %tile = tj.full %sum [rows, 16] : f32 -> tensor<?x?xf32>
    %unused_tile = tj.full %one [rows, 16] : f32 -> tensor<?x?xf32>
    %c0_i32 = arith.constant 0 : i32
    %lanes = tj.range %c0_i32 [16] : i32 -> tensor<?xi32>
    tj.store_scalar %sum, %out[%c0] : f32, !tj.view<[num_seqs], f32>
    tj.store %tile, %tiles[%c0, %c0] : tensor<?x?xf32>, !tj.view<[num_seqs, 16], f32>
    tj.store %lanes, %columns[%c0] : tensor<?xi32>, !tj.view<[16], i32>
  }
}
