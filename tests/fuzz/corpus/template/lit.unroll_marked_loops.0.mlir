// tj-unroll-marked-loops: scf.for loops marked `tj.unroll` are unrolled fully once their
// bounds are constants (after tj-bind-parameters and canonicalization); unmarked loops stay;
// a marked loop whose trip count is unknown is an error naming the template.
// RUN: tj-opt %s --split-input-file --tj-unroll-marked-loops --verify-diagnostics | FileCheck %s

// CHECK-LABEL: tj.template @unrolled
// CHECK: tj.kernel @unrolled
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[STEP:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NOT: tj.unroll
// CHECK: %[[A:.*]] = arith.addf %[[ZERO]], %[[STEP]]
// CHECK-NEXT: %[[B:.*]] = arith.addf %[[A]], %[[STEP]]
// CHECK-NEXT: %[[C:.*]] = arith.addf %[[B]], %[[STEP]]
// CHECK-NEXT: tj.store_scalar %[[C]]
// The unmarked loop is left as it is.
// CHECK: scf.for
// CHECK-NOT: tj.unroll
tj.template @unrolled {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 1 : index
    tj.yield %threads : index
  }
  tj.kernel @unrolled(%out: !tj.view<[1], f32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %sum = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %next = arith.addf %acc, %one : f32
      scf.yield %next : f32
    } {tj.unroll}
    tj.store_scalar %sum, %out[%c0] : f32, !tj.view<[1], f32>
    %kept = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f32) {
      %next = arith.addf %acc, %one : f32
      scf.yield %next : f32
    }
    tj.store_scalar %kept, %out[%c0] : f32, !tj.view<[1], f32>
  }
}
