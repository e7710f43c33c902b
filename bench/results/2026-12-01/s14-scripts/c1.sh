#!/usr/bin/env bash
# Session 14, call 1: branch range-in-layout at 5524aaa (.device/bin; tj.range built in the
# mma layout, the scratch sized for the dot's staged operands) against main 5defb41
# (.device/ab.tar.xz: libtilejit_c.so, tilejit_bench_jit): GPU tests of the branch, cold JIT
# of both interleaved (3 processes each), the head-128 matrix through the op with both, and
# bench/decode_fixed_cost.py (the 16 x 4K cells cut to 1..4096 tokens) with the branch.
# Staged: git checkout range-in-layout; bash scripts/stage_for_device.sh tilejit_bench_jit;
# bash scripts/stage_ab.sh main; main's tilejit_bench_jit copied into .device/ab;
# tar -cJf .device/ab.tar.xz -C .device ab (carry limit), .device/ab removed.
set -u
tar -C .device -xJf .device/ab.tar.xz
B=.device/bin; A=.device/ab; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c1-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
export TILEJIT_CACHE_DIR=/tmp/c1-jit
for i in 1 2 3; do
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
OUT=$R/fixed TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c1-f CELLS=32/8:16:4096,64/8:16:4096,32/8:64:1024 \
  timeout 120 python3 bench/decode_fixed_cost.py 2>&1 | tee $R/fixed.log | cut -c1-200
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
