// The placement attributes are checked: they come as a pair, in range, on 2-D 16-bit tiles.
// RUN: tj-opt %s -split-input-file -verify-diagnostics

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%x: !tj.view<[4, 16], bf16>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{shared_buffer and shared_slots go together}}
    %t = tj.load %x[%c0, %c0] [4, 16] {shared_buffer = 0 : i64} : !tj.view<[4, 16], bf16> -> tensor<4x16xbf16>
  }
}

// -----

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%x: !tj.view<[4, 16], bf16>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{shared_slots must be in [1, 4]}}
    %t = tj.load %x[%c0, %c0] [4, 16] {shared_buffer = 0 : i64, shared_slots = 5 : i64} : !tj.view<[4, 16], bf16> -> tensor<4x16xbf16>
  }
}

// -----

tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%x: !tj.view<[4, 16], f32>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{only 2-D tiles of 16-bit elements or fp8 codes are placed in shared memory}}
    %t = tj.load %x[%c0, %c0] [4, 16] {shared_buffer = 0 : i64, shared_slots = 1 : i64} : !tj.view<[4, 16], f32> -> tensor<4x16xf32>
  }
}

// -----

// Only a shuffled V tile is placed transposed.
tj.template @t {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 32 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%kc: !tj.kv_cache<k, [n, 16, 2, 64], bf16, layout = "shuffled">, %table: !tj.view<[s, b], i32>) {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{shared_transposed places a shuffled V tile}}
    %t = tj.paged_load %kc, %table[%c0] tokens %c0 limit %c0 head %c0 [16, 64] {shared_buffer = 0 : i64, shared_slots = 2 : i64, shared_transposed} : !tj.kv_cache<k, [n, 16, 2, 64], bf16, layout = "shuffled">, !tj.view<[s, b], i32> -> tensor<16x64xbf16>
  }
}
