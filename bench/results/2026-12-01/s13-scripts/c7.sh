#!/usr/bin/env bash
# Session 13, call 7: branch range-in-layout (tj.range built in the mma layout: no convert of
# the column indices): all GPU tests, the head-128 matrix through the op and its goals, and
# the JIT costs (cold x3 in new processes, warm, launch), as c3.sh and c5.sh.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c7-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
OUT=$R/matrix TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c7-matrix PARTITIONS=1024 BLOCK_NS=64 \
  timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
export TILEJIT_CACHE_DIR=/tmp/c7-jit
{ for i in 1 2 3; do rm -rf /tmp/c7-jit; CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done
  for i in 1 2 3; do $B/tilejit_bench_jit warm; done
  for i in 1 2 3; do $B/tilejit_bench_jit launch; $B/tilejit_bench_jit validate; done; } > $R/jit.jsonl 2>&1
grep -E "paged_decode" $R/jit.jsonl | grep cold
tar -C $OUT -czf $OUT/c7.tgz r && rm -rf $R
