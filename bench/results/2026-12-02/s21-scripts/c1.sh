#!/usr/bin/env bash
# Session 21, call 1: main + the shared LSE-weight helper (baaa8df; PTX of the cluster kernels
# differs only in a select/branch) in .device/bin: all GPU tests; the block-table prefetch into
# L1 (TILEJIT_NVRTC_OPTIONS=-DTJ_PREFETCH_L1=1) against L2 (the default) over the 16 x 4K and
# batch-1 cells, four interleaved rounds; the head-128 matrix; warm start, launch, cold JIT.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c1-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
CELLS=32/8:16:4096,64/8:16:4096,32/8:1:1024,64/8:1:1024,32/8:1:4096
for i in 1 2 3 4; do
  for X in L2 L1; do
    opt=""; [ $X = L1 ] && opt="-DTJ_PREFETCH_L1=1"
    TILEJIT_NVRTC_OPTIONS="$opt" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c1-$X CELLS=$CELLS \
      PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
  done
done
(cd bench && python3 decode_ab.py $R/ab_L1/decode_tilejit.jsonl $R/ab_L2/decode_tilejit.jsonl) | tee $R/ab_compare.txt | tail -8
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c1-m PARTITIONS=1024 BLOCK_NS=64 timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
(cd bench && python3 decode_goals.py $R/matrix/decode_tilejit.jsonl; python3 decode_cells.py $R/matrix/decode_tilejit.jsonl) > $R/matrix/goals.txt; head -12 $R/matrix/goals.txt
for i in 1 2 3; do
  rm -rf /tmp/c1-jit; TILEJIT_CACHE_DIR=/tmp/c1-jit CUDA_CACHE_DISABLE=1 timeout 30 $B/tilejit_bench_jit cold paged_decode_reduce paged_decode_head128
done > $R/jit.jsonl 2>&1
TILEJIT_CACHE_DIR=/tmp/c1-jit $B/tilejit_bench_jit warm >> $R/jit.jsonl 2>&1; $B/tilejit_bench_jit launch >> $R/jit.jsonl 2>&1
cut -c1-220 $R/jit.jsonl
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
