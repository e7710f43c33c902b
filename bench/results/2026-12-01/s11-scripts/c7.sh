#!/usr/bin/env bash
# Session 11, call 7: nvrtc --minimal (no texture/runtime-API declarations in the front end)
# for the cold JIT, alternating with the current options; the GPU tests under it.
set -u
B=.device/bin; export LD_LIBRARY_PATH=$PWD/$B
for i in 1 2 3; do
  rm -rf /tmp/c7; TILEJIT_CACHE_DIR=/tmp/c7 CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold | sed 's/^/base /'
  rm -rf /tmp/c7; TILEJIT_NVRTC_OPTIONS=--minimal TILEJIT_CACHE_DIR=/tmp/c7 CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold | sed 's/^/minimal /'
done > $OUT/cold.txt 2>&1
cat $OUT/cold.txt
rm -rf /tmp/c7t; TILEJIT_NVRTC_OPTIONS=--minimal TILEJIT_CACHE_DIR=/tmp/c7t $B/tilejit_gpu_tests --gtest_brief=1 > $OUT/gpu_tests_minimal.txt 2>&1; tail -3 $OUT/gpu_tests_minimal.txt
