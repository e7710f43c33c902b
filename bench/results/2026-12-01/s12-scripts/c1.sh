#!/usr/bin/env bash
# Session 12, call 1: GPU tests with the cluster merge (cluster2/4/8 cases, graph replay,
# refusals), then the 14 low-bandwidth cells swept over partitions 128..4096 x block_n 32/64
# x {merge kernel, cluster merge}.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c1-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -3 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -60
LOW=32/32:1:1024,32/8:1:1024,64/8:1:1024,32/32:1:4096,32/8:1:4096,64/8:1:4096,32/32:1:16384,32/8:1:16384,64/8:1:16384,32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096,64/8:64:1024
OUT=$R/sweep TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c1-sweep CELLS=$LOW \
  PARTITIONS=128,256,512,1024,2048,4096 BLOCK_NS=32,64 MERGE_IN_KERNEL=0,c \
  timeout 400 python3 bench/bench_decode.py > $R/sweep.log 2>&1; tail -30 $R/sweep.log
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
