#!/usr/bin/env bash
# Session 13, call 1: the GPU tests of main (4df8ee0: cluster size in the kernel metadata) and
# of the rebased branch unverified-shuffled-shared (.device/ab: shuffled K/V placed in shared
# memory), then the shuffled layout through the branch's op under occupancy hints 5 and 0.
set -u
B=.device/bin; export LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c1-main $B/tilejit_gpu_tests --gtest_brief=1 > $OUT/gpu_tests_main.txt 2>&1; echo "== main"; tail -3 $OUT/gpu_tests_main.txt
grep -B3 -A12 "FAILED\|Failure" $OUT/gpu_tests_main.txt | head -30
TILEJIT_CACHE_DIR=/tmp/c1-ab .device/ab/tilejit_gpu_tests --gtest_brief=1 > $OUT/gpu_tests_shuffled.txt 2>&1; echo "== branch"; tail -3 $OUT/gpu_tests_shuffled.txt
grep -B3 -A12 "FAILED\|Failure" $OUT/gpu_tests_shuffled.txt | head -40
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers TILEJIT_LIB=.device/ab/libtilejit_c.so
for hint in 5 0; do d=$R/hint$hint; mkdir -p $d
  OUT=$d TILEJIT_CACHE_DIR=/tmp/c1-b KV_LAYOUT=shuffled DECODE_PARAMS="{\"min_blocks_per_sm\": $hint}" \
    CELLS=32/8:64:4096,32/32:16:4096,64/8:16:4096,32/8:1:16384,64/8:256:4096,32/8:1:1024 PARTITIONS=1024 BLOCK_NS=32,64 \
    python3 bench/bench_decode.py > $d/log.txt 2>&1; echo "== hint $hint"; tail -8 $d/log.txt; done
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
