// Tile layouts (#tj.mma, #tj.mma_rows) and the matrix instructions they name are checked on
// the types and on the ops that move values between them.
// RUN: tj-opt %s -split-input-file -verify-diagnostics

// mma.sync m16n8k16's accumulator (A and B left out: only acc is needed here).
#sync = #tj.matrix_instr<"mma.sync.m16n8k16", m = 16, n = 8, k = 16, lanes = 32, acc = <reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>>
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    // expected-error @+1 {{#tj.mma of mma.sync.m16n8k16 needs rows a multiple of 16 and columns a multiple of 8}}
    %t = tj.full %v [8, 8] : f32 -> tensor<8x8xf32, #tj.mma<#sync>>
  }
}
