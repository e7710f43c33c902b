#!/usr/bin/env bash
# Session 12, call 3: the head-128 matrix through the op with the cluster rows (and the
# p1024_n64 variant for continuity), the JIT figures (cold with --minimal, warm, launch,
# validation, driver floor), and the cluster merge at batch 1 for heads 256 and 192.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
OUT=$R/matrix TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c3-matrix PARTITIONS=1024 BLOCK_NS=64 \
  timeout 330 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
rm -rf /tmp/c3-jit; export TILEJIT_CACHE_DIR=/tmp/c3-jit
{ for i in 1 2 3; do rm -rf /tmp/c3-jit; CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done
  for i in 1 2 3; do $B/tilejit_bench_jit warm; done
  for i in 1 2 3; do $B/tilejit_bench_jit launch; $B/tilejit_bench_jit validate; done; } > $R/jit.jsonl 2>&1
grep -o '"[a-z_]*": *[0-9.e-]*' $R/jit.jsonl | head -40
unset TILEJIT_CACHE_DIR
for h in 256 192; do
  OUT=$R/head$h HEAD_SIZE=$h TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c3-h$h \
    CELLS=32/8:1:1024,64/8:1:1024,32/8:1:4096,64/8:1:4096 PARTITIONS=128,256,512 BLOCK_NS=32 MERGE_IN_KERNEL=0,c \
    timeout 100 python3 bench/bench_decode.py > $R/head$h.log 2>&1; grep -A6 "^heads " $R/head$h.log; done
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
