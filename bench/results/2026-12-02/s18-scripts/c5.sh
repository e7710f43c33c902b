#!/usr/bin/env bash
# Session 18, call 5: generic load/store slow paths through a staging array in a rolled loop
# (.device/bin) against the library without that change (.device/oldlib = 089cd20's, same
# binary): GPU tests; reshape_and_cache and merge_attn_states against the Triton peers, new
# and old, twice each; the head-128 matrix through the op (its merge kernel has the change).
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
OLD=$PWD/.device/oldlib/templates/device
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c5-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2; do for X in new old; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  env "${lib[@]}" OUT=$R/mem_$X TILEJIT_CACHE_DIR=/tmp/c5-m$X timeout 90 python3 bench/bench_memory_kernels.py > $R/mem_${X}_$i.txt 2>&1
  echo "== $X $i"; tail -12 $R/mem_${X}_$i.txt
done; done
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c5-mx PARTITIONS=1024 BLOCK_NS=64 \
  timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; tail -6 $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
