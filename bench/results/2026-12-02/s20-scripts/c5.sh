#!/usr/bin/env bash
# Session 20, call 5: the final form of the merge by push (call 4's, plus: a program whose
# partner has already said it pushes skips the add at rank 0's count) in .device/bin ("new"),
# against call 4's form (.device/v2lib) and main 04fbdb2's library (.device/oldlib): all GPU
# tests; 16 x 4K through the op, three interleaved rounds; the timeline's tail; the head-128
# matrix; cold JIT (four processes), warm start and launch cost.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c5-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3; do
  for X in new v2 old; do
    lib=(); [ $X != new ] && lib=(TILEJIT_DEVICE_LIB_DIR=$PWD/.device/${X}lib/templates/device)
    env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c5-$X CELLS=32/8:16:4096,64/8:16:4096 \
      PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 120 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
  done
done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl | tail -3
 python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_v2/decode_tilejit.jsonl | tail -3) | tee $R/ab_compare.txt
OUT=$R/tl TILEJIT_CACHE_DIR=/tmp/c5-tl CELLS=32/8:16:4096 LENS=1,4096 RUNS=3 timeout 200 python3 bench/decode_timeline.py > $R/tl.log 2>&1
python3 bench/timeline_tail.py $R/tl/timeline_raw.txt | grep "cluster exit" | tee $R/tail.txt
gzip -f $R/tl/timeline_raw.txt
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c5-m PARTITIONS=1024 BLOCK_NS=64 timeout 220 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
for i in 1 2 3 4; do
  rm -rf /tmp/c5-jit; TILEJIT_CACHE_DIR=/tmp/c5-jit CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold paged_decode_reduce paged_decode_head128
done > $R/jit.jsonl 2>&1
TILEJIT_CACHE_DIR=/tmp/c5-jit $B/tilejit_bench_jit warm >> $R/jit.jsonl 2>&1; $B/tilejit_bench_jit launch >> $R/jit.jsonl 2>&1
cut -c1-200 $R/jit.jsonl
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
