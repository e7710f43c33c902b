#!/usr/bin/env bash
# Session 11, call 6: where the launch cost goes (Device::launch, its validation alone, the
# driver's floor) and the cold JIT again.
set -u
B=.device/bin; export LD_LIBRARY_PATH=$PWD/$B
rm -rf /tmp/c6; export TILEJIT_CACHE_DIR=/tmp/c6
{ CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; $B/tilejit_bench_jit warm; $B/tilejit_bench_jit warm;
  for i in 1 2 3; do $B/tilejit_bench_jit launch; $B/tilejit_bench_jit validate; done; } > $OUT/jit.jsonl 2>&1
cat $OUT/jit.jsonl
