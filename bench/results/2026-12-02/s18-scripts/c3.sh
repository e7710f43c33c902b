#!/usr/bin/env bash
# Session 18, call 3: main (b153747's device library, CSE after the CUDA layout passes) in
# .device/bin against 58582c5's device library (.device/oldlib, same binary): GPU tests; cold
# JIT of head 128 after the merge kernel's compile, alternating new old old new, eight times;
# batch-1 and 16 x 4K cells through the op, new and old interleaved four times; the head-128
# matrix with the new library; warm start and launch.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
OLD=$PWD/.device/oldlib/templates/device
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c3-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3 4 5 6 7 8; do for X in new old old new; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  rm -rf /tmp/c3-jit; env "${lib[@]}" TILEJIT_CACHE_DIR=/tmp/c3-jit CUDA_CACHE_DISABLE=1 \
    $B/tilejit_bench_jit cold paged_decode_reduce paged_decode_head128 | sed "s/^{/{\"lib\":\"$X\",\"round\":$i,/"
done; done > $R/jit.jsonl 2>&1
python3 bench/results/2026-12-02/s18-scripts/jit_pairs.py $R/jit.jsonl | tee $R/jit_summary.txt
rm -rf /tmp/c3-jit; TILEJIT_CACHE_DIR=/tmp/c3-jit CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold > $R/jit_all.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c3-jit $B/tilejit_bench_jit warm; $B/tilejit_bench_jit launch; done >> $R/jit_all.jsonl 2>&1
cat $R/jit_all.jsonl | cut -c1-200
for i in 1 2 3 4; do for X in new old; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c3-b$X CELLS=32/8:1:4096,64/8:1:1024,32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tail -5 | tee $R/ab_compare.txt
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c3-m PARTITIONS=1024 BLOCK_NS=64 \
  timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
