// tj-check-constraints on bound templates (what tj-bind-parameters leaves): a constraint that
// folds to true is erased; one that folds to false rejects the specialization with its
// message and the values of the parameters it reads; one that does not fold (an unbound
// template) is an error too.
// RUN: tj-opt %s --split-input-file --tj-check-constraints --verify-diagnostics | FileCheck %s
// Bound and checked in one run: the messages `tilejit compile` prints.
// RUN: tj-opt %S/bind_parameters.mlir --tj-bind-parameters="target=sm_90 values=tiles=1,kv_layout=shuffled" --tj-check-constraints | FileCheck %s --check-prefix=HOLDS
// RUN: not tj-opt %S/bind_parameters.mlir --tj-bind-parameters="target=sm_90 values=tiles=1,kv_layout=shuffled,block_n=16" --tj-check-constraints 2>&1 | FileCheck %s --check-prefix=FAILS

// CHECK-LABEL: tj.template @holds
// CHECK-NOT: tj.constraint
// CHECK: tj.launch
tj.template @holds attributes {tj.parameters = {block_n = 32 : i64, partition_size = 128 : i64}} {
  tj.constraint "partition_size must be a multiple of block_n" {
    %partition = arith.constant 128 : i64
    %n = arith.constant 32 : i64
    %rem = arith.remsi %partition, %n : i64
    %zero = arith.constant 0 : i64
    %ok = arith.cmpi eq, %rem, %zero : i64
    tj.yield %ok : i1
  } {tj.parameters_read = ["block_n", "partition_size"]}
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @holds() {
  }
}
