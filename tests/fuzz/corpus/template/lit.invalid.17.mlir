
// tj.cluster_merge_store merges f32 partials, one LSE per row.
tj.template @cluster_merge_rows {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @cluster_merge_rows(%out: !tj.view<[n, m], bf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %partial = tj.full %zero [16, 64] : f32 -> tensor<16x64xf32>
    %lse = tj.full %zero [8] : f32 -> tensor<8xf32>
    // expected-error@+1 {{has 16 partial rows but 8 LSEs}}
    tj.cluster_merge_store %partial, %lse count %c0 into %out[%c0, %c0] : tensor<16x64xf32>, tensor<8xf32>, !tj.view<[n, m], bf16>
  }
}
