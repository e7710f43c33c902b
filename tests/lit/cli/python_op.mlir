// tilejit.Op (Python, ctypes over the C ABI's tj_op_*): an op by name lists its arguments and
// sizes its workspaces, runs against a float64 reference, and bad parameters or calls are
// errors naming the problem.
// RUN: rm -rf %t.cache
// RUN: env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 -c "import tilejit; j = tilejit.Jit(cpu=True); op = tilejit.Op(j, 'paged_decode', gqa_ratio=2, partition_size=64, block_n=32, soft_cap=False); print(op.arguments); print(op.workspaces(num_seqs=4, num_kv_heads=2, max_model_len=100))" | FileCheck %s
// RUN: env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 %S/Inputs/op_capi.py | FileCheck %s --check-prefix=MERGE
// RUN: not env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 -c "import tilejit; tilejit.Op(tilejit.Jit(cpu=True), 'paged_decode', kv_layout='diagonal')" 2>&1 | FileCheck %s --check-prefix=ERROR
// CHECK: ['output', 'partial_out', 'partial_lse', 'query', 'key_cache', 'value_cache', 'block_tables', 'seq_lens', 'alibi_slopes', 'sinks', 'k_scales', 'v_scales', 'arrivals', 'scale', 'soft_cap_value', 'sliding_window']
// CHECK: {'partial_out': {'dtype': 'float32', 'shape': (4, 2, 4, 128), 'bytes': 16384, 'zero_once': False}, 'partial_lse': {'dtype': 'float32', 'shape': (4, 2, 4), 'bytes': 128, 'zero_once': False}, 'arrivals': {'dtype': 'int32', 'shape': (4, 2), 'bytes': 32, 'zero_once': True}}
// MERGE: arguments ['output', 'output_lse', 'prefix_output', 'prefix_lse', 'suffix_output', 'suffix_lse'] workspaces {}
// MERGE-NEXT: merge ok
// MERGE-NEXT: error op merge_attn_states takes 6 arguments (output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse), not 5
// ERROR: tilejit.TilejitError: op 'paged_decode' parameter 'kv_layout': 'diagonal' is not one of its values; legal values: standard, shuffled
