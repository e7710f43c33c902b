
tj.template @cluster_merge_f16 {
  tj.launch grid {
    %one = arith.constant 1 : index
    tj.yield %one, %one, %one : index, index, index
  } threads {
    %one = arith.constant 32 : index
    tj.yield %one : index
  }
  tj.kernel @cluster_merge_f16(%out: !tj.view<[n, m], bf16>) {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f16
    %partial = tj.full %zero [16, 64] : f16 -> tensor<16x64xf16>
    %lse = tj.full %zero [16] : f16 -> tensor<16xf16>
    // expected-error@+1 {{merges f32 partials and LSEs}}
    tj.cluster_merge_store %partial, %lse count %c0 into %out[%c0, %c0] : tensor<16x64xf16>, tensor<16xf16>, !tj.view<[n, m], bf16>
  }
}
