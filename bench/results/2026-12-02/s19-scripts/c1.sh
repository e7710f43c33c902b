#!/usr/bin/env bash
# Session 19, call 1: the branch staged-row-fallback's device library (.device/newlib, "new",
# through TILEJIT_DEVICE_LIB_DIR) against main's (6f91f8d, compiled into .device/bin, "old"):
# GPU tests with the new library; reshape_and_cache / merge_attn_states new and old, twice
# each; the decode cells that run paged_decode_reduce (batch 1 and 16 x 16K, large batches)
# through the op, interleaved twice; cold JIT of the three changed kernels alternating.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
NEW=$PWD/.device/newlib/templates/device
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_DEVICE_LIB_DIR=$NEW TILEJIT_CACHE_DIR=/tmp/c1-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2; do for X in new old; do
  lib=(); [ $X = new ] && lib=(TILEJIT_DEVICE_LIB_DIR=$NEW)
  env "${lib[@]}" OUT=$R/mem_$X TILEJIT_CACHE_DIR=/tmp/c1-m$X timeout 90 python3 bench/bench_memory_kernels.py > $R/mem_${X}_$i.txt 2>&1
  echo "== mem $X $i"; tail -8 $R/mem_${X}_$i.txt
done; done
CELLS=32/8:1:16384,32/32:1:16384,64/8:1:16384,32/8:16:16384,32/32:64:16384,64/8:256:16384,32/8:64:4096
for i in 1 2; do for X in new old; do
  lib=(); [ $X = new ] && lib=(TILEJIT_DEVICE_LIB_DIR=$NEW)
  env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c1-ab$X CELLS=$CELLS PARTITIONS=1024 BLOCK_NS=64 \
    timeout 150 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tee $R/ab_compare.txt
for i in $(seq 8); do for X in new old; do
  lib=(); [ $X = new ] && lib=(TILEJIT_DEVICE_LIB_DIR=$NEW)
  rm -rf /tmp/c1-jit; env "${lib[@]}" TILEJIT_CACHE_DIR=/tmp/c1-jit CUDA_CACHE_DISABLE=1 \
    $B/tilejit_bench_jit cold paged_decode_head128 merge_attn_states reshape_and_cache paged_decode_reduce | sed "s/^{/{\"lib\":\"$X\",\"round\":$i,/"
done; done > $R/jit.jsonl 2>&1
python3 bench/results/2026-12-02/s18-scripts/jit_pairs.py $R/jit.jsonl | tee $R/jit_summary.txt
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
