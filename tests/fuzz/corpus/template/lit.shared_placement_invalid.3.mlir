
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
