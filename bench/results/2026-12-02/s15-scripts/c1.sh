#!/usr/bin/env bash
# Session 15, call 1: the device library with threadId bounded by TJ_THREADS and mma tiles
# stored per fragment (dfe633c, .device/bin) against 12eed54 (.device/ab.tar.xz:
# libtilejit_c.so, tilejit_bench_jit): GPU tests of dfe633c, cold JIT of both interleaved
# (4 processes each), the head-128 matrix through the op with both (PARTITIONS=1024 BLOCK_NS=64).
# Staged: bash scripts/stage_for_device.sh tilejit_bench_jit; bash scripts/stage_ab.sh 12eed54;
# 12eed54's tilejit_bench_jit copied into .device/ab, its gpu tests removed; tar -cJf
# .device/ab.tar.xz -C .device ab; .device/ab removed.
set -u
tar -C .device -xJf .device/ab.tar.xz
B=.device/bin; A=.device/ab; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c1-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
export TILEJIT_CACHE_DIR=/tmp/c1-jit
for i in 1 2 3 4; do
  for X in bin ab; do rm -rf /tmp/c1-jit; CUDA_CACHE_DISABLE=1 .device/$X/tilejit_bench_jit cold | sed "s/^{/{\"build\":\"$X\",/"; done
done > $R/jit.jsonl 2>&1
for i in 1 2 3; do $B/tilejit_bench_jit warm; done >> $R/jit.jsonl 2>&1
for i in 1 2; do $B/tilejit_bench_jit launch; $B/tilejit_bench_jit validate; done >> $R/jit.jsonl 2>&1
grep -E "paged_decode" $R/jit.jsonl | grep cold | cut -c1-150
for X in bin ab; do
  OUT=$R/matrix_$X TILEJIT_LIB=.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c1-m$X PARTITIONS=1024 BLOCK_NS=64 \
    timeout 200 python3 bench/bench_decode.py > $R/matrix_$X.log 2>&1
  python3 bench/decode_goals.py $R/matrix_$X/decode_tilejit.jsonl > $R/matrix_$X/goals.txt; cat $R/matrix_$X/goals.txt
done
python3 bench/decode_compare.py $R/matrix_ab/decode_tilejit.jsonl $R/matrix_bin/decode_tilejit.jsonl > $R/compare.txt 2>&1; tail -45 $R/compare.txt
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
