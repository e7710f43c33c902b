
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
