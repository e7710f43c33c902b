// Ahead of time: a manifest expands to specializations (constraint-rejected ones listed as skipped),
// compiles them into one bundle, and the runtime-only loader (no MLIR/LLVM) loads and
// launches every kernel built for this machine.
// RUN: rm -rf %t && mkdir -p %t
// RUN: echo '{"bundle": "k.tjb", "jobs": [{"template": "reshape_and_cache", "targets": ["host"], "skip_rejected": true, "grid": {"block_size": [8, 4], "kv_layout": ["shuffled"]}}, {"template": "paged_decode_reduce", "targets": ["host"], "grid": {"partitions_per_step": [2]}}]}' > %t/manifest.json
// RUN: env TILEJIT_CACHE_DIR=%t/cache tilejit aot %t/manifest.json --quiet 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: tilejit-bundle-run %t/k.tjb --load-all --launch --cpu | FileCheck %s --check-prefix=LOADER
// COMPILE: 3 specs
// COMPILE: 2 compiled
// COMPILE: skipped: reshape_and_cache host block_size=4 kv_layout=shuffled: {{.*}}multiple of 8
// LOADER: launched reshape_and_cache
// LOADER: launched paged_decode_reduce
// LOADER: loaded 2 kernels
// Without skip_rejected the rejected spec fails the run and nothing is written; progress into a
// pipe is plain lines, not carriage returns.
// RUN: echo '{"bundle": "strict.tjb", "jobs": [{"template": "reshape_and_cache", "targets": ["host"], "grid": {"block_size": [8, 4], "kv_layout": ["shuffled"]}}]}' > %t/strict.json
// RUN: env TILEJIT_CACHE_DIR=%t/cache not tilejit aot %t/strict.json 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not test -e %t/strict.tjb
// STRICT: 2 specializations from 1 jobs
// STRICT: {{^}}[2/2] {{.*}} failures 1 skipped 0{{$}}
// STRICT: bundle: not written (1 specs failed
// STRICT: FAILED: reshape_and_cache host block_size=4 kv_layout=shuffled: {{.*}}skip_rejected
