#!/usr/bin/env bash
# Session 12, call 2: GPU tests after the table rows (and a cluster of 3), then the batch-16
# cells swept over partitions 384..2048 (384 and 1408: three partitions, one wave at three
# programs per SM) x block_n 32/64 x depth 1/2 x {merge kernel, cluster merge}.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c2-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -3 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -60
OUT=$R/sweep16 TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2-sweep \
  CELLS=32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096 \
  PARTITIONS=384,512,1024,1408,2048 BLOCK_NS=32,64 DEPTHS=1,2 MERGE_IN_KERNEL=0,c \
  timeout 380 python3 bench/bench_decode.py > $R/sweep16.log 2>&1; tail -12 $R/sweep16.log
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
