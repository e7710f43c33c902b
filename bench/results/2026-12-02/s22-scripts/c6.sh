#!/usr/bin/env bash
# Session 22, call 6: main (b0d7cc7's kernels, unchanged this session): the head-128 matrix
# through the op; cold JIT (three processes, fresh caches), warm start, launch, graph replay.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$PWD/$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
for i in 1 2 3; do
  rm -rf /tmp/c6-jit; TILEJIT_CACHE_DIR=/tmp/c6-jit CUDA_CACHE_DISABLE=1 timeout 30 $B/tilejit_bench_jit cold paged_decode_head128
done > $R/jit.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c6-jit $B/tilejit_bench_jit warm >> $R/jit.jsonl 2>&1; done
$B/tilejit_bench_jit launch >> $R/jit.jsonl 2>&1
cut -c1-200 $R/jit.jsonl
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c6-m PARTITIONS=1024 BLOCK_NS=64 timeout 300 python3 bench/bench_decode.py > $R/matrix.log 2>&1
(cd bench && python3 decode_goals.py $R/matrix/decode_tilejit.jsonl; python3 decode_cells.py $R/matrix/decode_tilejit.jsonl) > $R/matrix/goals.txt; head -14 $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c6.tgz r && rm -rf $R
