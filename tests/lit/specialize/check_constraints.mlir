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

// -----

// expected-error@+1 {{template 'rejects' rejects this specialization: partition_size must be a multiple of block_n (block_n=48, partition_size=100)}}
tj.template @rejects attributes {tj.parameters = {block_n = 48 : i64, partition_size = 100 : i64}} {
  tj.constraint "partition_size must be a multiple of block_n" {
    %partition = arith.constant 100 : i64
    %n = arith.constant 48 : i64
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
  tj.kernel @rejects() {
  }
}

// -----

// expected-error@+1 {{constraint 'block_n is even' did not fold to a constant}}
tj.template @unbound {
  tj.param @block_n : int values [16, 32]
  tj.constraint "block_n is even" {
    %n = tj.param_value @block_n : i64
    %two = arith.constant 2 : i64
    %rem = arith.remsi %n, %two : i64
    %zero = arith.constant 0 : i64
    %ok = arith.cmpi eq, %rem, %zero : i64
    tj.yield %ok : i1
  }
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @unbound() {
  }
}

// HOLDS: tj.template @paged_decode
// HOLDS-NOT: tj.constraint
// HOLDS: tj.launch
// FAILS: error: template 'paged_decode' rejects this specialization: the shuffled layout needs block_n of at least 32 (block_n=16, kv_layout=shuffled)
