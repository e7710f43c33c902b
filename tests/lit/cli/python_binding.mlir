// The Python binding (ctypes over the C ABI) loads kernels and reports specialization errors.
// RUN: rm -rf %t.cache
// RUN: env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 -c "import tilejit; j = tilejit.Jit(cpu=True); k = j.load('reshape_and_cache', block_size=8); print('target', j.device_target, 'hit', k.info.cache_hit)" | FileCheck %s --check-prefix=LOAD
// RUN: env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 -c "import tilejit; j = tilejit.Jit(cpu=True); k = j.load('reshape_and_cache', block_size=8); print('hit', k.info.cache_hit)" | FileCheck %s --check-prefix=HIT
// RUN: not env TILEJIT_CACHE_DIR=%t.cache TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 -c "import tilejit; tilejit.Jit(cpu=True).load('reshape_and_cache', block_size=12)" 2>&1 | FileCheck %s --check-prefix=ERROR
// LOAD: target host hit 0
// HIT: hit 1
// ERROR: tilejit.TilejitError: parameter 'block_size': value 12 is not allowed for template 'reshape_and_cache'; legal values: 1, 2, 4, 8, 16, 32, 64, 128, 256
// RUN: env TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 %S/Inputs/kernel_by_name.py | FileCheck %s --check-prefix=NAMED
// NAMED: arg output bfloat16 ('num_tokens', 'num_heads', 64) writes
// NAMED: arg prefix_lse float32 ('num_heads', 'num_tokens') reads
// NAMED: by name [1.5]
// NAMED: error kernel arguments are output, output_lse, prefix_output, prefix_lse, suffix_output, suffix_lse; missing: output_lse, prefix_output
