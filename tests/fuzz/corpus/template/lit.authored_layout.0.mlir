// Tile layouts are assigned by the compiler; a template that writes one is rejected with the
// place it did so, on every target.
// RUN: not tilejit compile %s --target host --emit specialized --no-cache 2>&1 | FileCheck %s
// RUN: not tilejit compile %s --target sm_90 --emit specialized --no-cache 2>&1 | FileCheck %s
// CHECK: template 'authored' sets a tile layout (tj.full at loc("{{.*}}authored_layout.mlir":16:10) has tile type tensor<16x8xf32, #tj.mma>); layouts are assigned by the compiler on the targets that have them: write tiles without encodings
tj.template @authored {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %threads = arith.constant 128 : index
    tj.yield %threads : index
  }
  tj.kernel @k(%out: !tj.view<[16, 8], f32>, %v: f32) {
    %c0 = arith.constant 0 : index
    %t = tj.full %v [16, 8] : f32 -> tensor<16x8xf32, #tj.mma>
    tj.store %t, %out[%c0, %c0] : tensor<16x8xf32, #tj.mma>, !tj.view<[16, 8], f32>
  }
}
