#!/usr/bin/env bash
# Session 20, call 6: main's final tree (the merge by push in call 4's form) in .device/bin:
# all GPU tests; warm start (twice: the first process compiles the defaults) and launch cost;
# 16 x 4K through the op against main 04fbdb2's library (.device/oldlib), three rounds.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c6-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c6-w $B/tilejit_bench_jit warm; done > $R/jit.jsonl 2>&1
$B/tilejit_bench_jit launch >> $R/jit.jsonl 2>&1; cut -c1-200 $R/jit.jsonl
for i in 1 2 3; do
  for X in new old; do
    lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$PWD/.device/oldlib/templates/device)
    env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c6-$X CELLS=32/8:16:4096,64/8:16:4096 \
      PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 120 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
  done
done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tee $R/ab_compare.txt
tar -C $OUT -czf $OUT/c6.tgz r && rm -rf $R
