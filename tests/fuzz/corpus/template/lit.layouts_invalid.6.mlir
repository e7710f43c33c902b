
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
