// Tile layouts (#tj.mma, #tj.mma_rows) are checked on the types and on the ops that move
// values between them.
// RUN: tj-opt %s -split-input-file -verify-diagnostics

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%v: f32) {
    // expected-error @+1 {{#tj.mma needs rows a multiple of 16 and columns a multiple of 8}}
    %t = tj.full %v [8, 8] : f32 -> tensor<8x8xf32, #tj.mma>
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
