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

// -----

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    %t = tj.full %v [16, 8] : f32 -> tensor<16x8xf32, #tj.mma>
    // expected-error @+1 {{reduces an mma tile along axis 1 only, to an mma_rows tile}}
    %r = tj.reduce sum %t axis 0 : tensor<16x8xf32, #tj.mma> -> tensor<8xf32>
  }
}

// -----

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    %t = tj.full %v [16, 1] : f32 -> tensor<16x1xf32>
    // expected-error @+1 {{broadcasts blocked to mma; only mma_rows -> mma and blocked -> blocked}}
    %b = tj.broadcast %t [16, 8] : tensor<16x1xf32> -> tensor<16x8xf32, #tj.mma>
  }
}

// -----

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    %t = tj.full %v [16, 8] : f32 -> tensor<16x8xf32>
    // expected-error @+1 {{result type's layout is blocked, not mma}}
    %c = tj.convert_layout %t to "mma" : tensor<16x8xf32> -> tensor<16x8xf32>
  }
}

// -----

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%x: !tj.view<[16], f32>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{produces a tile in the blocked layout; got mma_rows}}
    %t = tj.load %x[%c0] [16] : !tj.view<[16], f32> -> tensor<16xf32, #tj.mma_rows>
  }
}

// -----

// MFMA 32x32x8's accumulator: the tile's rows and columns are multiples of 32.
#mfma = #tj.matrix_instr<"mfma_f32_32x32x8bf16_1k", m = 32, n = 32, k = 8, lanes = 64, acc = <reg = [[1, 0], [2, 0], [8, 0], [16, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]]>>
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 256 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    // expected-error @+1 {{#tj.mma_rows of mfma_f32_32x32x8bf16_1k needs rows a multiple of 32}}
    %t = tj.full %v [16] : f32 -> tensor<16xf32, #tj.mma_rows<#mfma>>
  }
}

// -----

// A row value broadcasts into the fragments of its own instruction only.
#sync = #tj.matrix_instr<"mma.sync.m16n8k16", m = 16, n = 8, k = 16, lanes = 32, acc = <reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]>>
#wmma = #tj.matrix_instr<"wmma_f32_16x16x16_bf16_w32_gfx12", m = 16, n = 16, k = 16, lanes = 32, acc = <reg = [[1, 0], [2, 0], [4, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [8, 0]]>>
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    %t = tj.full %v [16, 1] : f32 -> tensor<16x1xf32, #tj.mma_rows<#sync>>
    // expected-error @+1 {{moves a tile between the fragments of mma.sync.m16n8k16 and wmma_f32_16x16x16_bf16_w32_gfx12}}
    %b = tj.broadcast %t [16, 16] : tensor<16x1xf32, #tj.mma_rows<#sync>> -> tensor<16x16xf32, #tj.mma<#wmma>>
  }
}

// -----

// Two lanes holding one accumulator element (lane bit 4 repeats bit 2) leave another unowned.
// expected-error @+1 {{matrix_instr 'bad': acc [16, 8]: element (0, 0) is held 2 time(s), not 1}}
#bad = #tj.matrix_instr<"bad", m = 16, n = 8, k = 16, lanes = 32, acc = <reg = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [1, 0]]>>

// -----

// expected-error @+1 {{matrix_instr 'short': acc has 4 lane bases; 32 lanes need 5}}
#short = #tj.matrix_instr<"short", m = 16, n = 8, k = 16, lanes = 32, acc = <reg = [[0, 1], [8, 0], [0, 4]], lane = [[0, 2], [1, 0], [2, 0], [4, 0]]>>

// -----

// expected-error @+1 {{matrix_instr 'outside': a [16, 16]: lane 16 element 0 holds (16, 0), outside the 16x16 tile}}
#outside = #tj.matrix_instr<"outside", m = 16, n = 16, k = 16, lanes = 32, a = <reg = [[0, 1], [0, 2], [0, 4]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]>, acc = <reg = [[2, 0], [4, 0], [8, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0]]>>

// -----

// expected-error @+1 {{matrix_instr 'odd': m, n, k and lanes must be powers of two, got 12, 8, 16, 32}}
#odd = #tj.matrix_instr<"odd", m = 12, n = 8, k = 16, lanes = 32, acc = <reg = [], lane = []>>
