#!/usr/bin/env bash
# Session 21, call 5: main's final tree (9a3559f: baaa8df's kernels; the dialect's extent-list
# parser shared by tile shapes) in .device/bin: all GPU tests; cold JIT (three processes), warm
# start (twice: the first process compiles), launch cost.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=$PWD/$B
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c5-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3; do
  rm -rf /tmp/c5-jit; TILEJIT_CACHE_DIR=/tmp/c5-jit CUDA_CACHE_DISABLE=1 timeout 30 $B/tilejit_bench_jit cold paged_decode_reduce paged_decode_head128
done > $R/jit.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c5-w $B/tilejit_bench_jit warm; done >> $R/jit.jsonl 2>&1
$B/tilejit_bench_jit launch >> $R/jit.jsonl 2>&1
grep -h '"mode"' $R/jit.jsonl | cut -c1-160
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
