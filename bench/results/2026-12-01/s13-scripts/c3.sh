#!/usr/bin/env bash
# Session 13, call 3: main after the 1K row of 8 warps and the merged one-lookup shuffled V
# load: all GPU tests, then the head-128 matrix through the op (PARTITIONS=1024 BLOCK_NS=64
# beside it, as in s12) and its goals.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c3-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
OUT=$R/matrix TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c3-matrix PARTITIONS=1024 BLOCK_NS=64 \
  timeout 360 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
