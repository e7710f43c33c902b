// tilejit.Bundle (Python, ctypes over the C ABI's tj_bundle_*): a bundle from `tilejit aot` is
// listed, its kernel loaded without a compiler and run; a missing entry is an error; a
// damaged bundle does not open.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"bundle": "k.tjb", "jobs": [{"template": "merge_attn_states", "targets": ["host"], "grid": {"head_size": [64, 128]}}]}' > %t/manifest.json
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit aot %t/manifest.json --quiet > /dev/null
// RUN: env TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python:%S/Inputs python3 %S/Inputs/bundle_capi.py %t/k.tjb | FileCheck %s
// RUN: printf 'XXXXXXXX' | dd of=%t/k.tjb bs=1 seek=100 conv=notrunc 2> /dev/null
// RUN: not env TILEJIT_LIB=%tilejit_lib PYTHONPATH=%python python3 -c "import sys, tilejit; tilejit.Bundle(sys.argv[1], tilejit.Jit(cpu=True))" %t/k.tjb 2>&1 | FileCheck %s --check-prefix=DAMAGED
// CHECK: entry merge_attn_states host head_size=64
// CHECK: entry merge_attn_states host head_size=128
// CHECK: merge [1.5]
// CHECK: error {{.*}}merge_attn_states{{.*}}head_size
// DAMAGED: tilejit.TilejitError: {{.*}}k.tjb
