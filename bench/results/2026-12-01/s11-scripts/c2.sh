#!/usr/bin/env bash
# Session 11, call 2: the branch's GPU tests, the head-128 matrix branch/main/branch (op and
# p1024_n64), the branch's JIT figures, and kv_layout=shuffled under hints 0 and 5.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c2-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -3 $R/gpu_tests.txt
for build in bin ab bin2; do dir=.device/${build%2}; mkdir -p $R/$build
  OUT=$R/$build TILEJIT_LIB=$dir/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2-$build PARTITIONS=1024 BLOCK_NS=64 \
    python3 bench/bench_decode.py > $R/$build/log.txt 2>&1
  python3 bench/decode_goals.py $R/$build/decode_tilejit.jsonl > $R/$build/goals.txt; grep -A4 tilejit_op $R/$build/goals.txt; done
python3 bench/decode_compare.py $R/{bin,ab,bin2}/decode_tilejit.jsonl > $R/compare.txt
rm -rf /tmp/tilejit-jit; export TILEJIT_CACHE_DIR=/tmp/tilejit-jit
{ CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; for i in 1 2 3 4 5; do $B/tilejit_bench_jit warm; done; $B/tilejit_bench_jit launch; } > $R/jit.jsonl 2>&1; tail -4 $R/jit.jsonl
for hint in 0 5; do mkdir -p $R/shuffled$hint
  OUT=$R/shuffled$hint TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2-sh CELLS=32/8:64:4096,32/32:16:4096,64/8:1:16384 \
    PARTITIONS=1024 BLOCK_NS=32 DECODE_PARAMS="{\"kv_layout\": \"shuffled\", \"min_blocks_per_sm\": $hint}" \
    python3 bench/bench_decode.py > $R/shuffled$hint/log.txt 2>&1; tail -6 $R/shuffled$hint/log.txt; done
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
