#!/usr/bin/env bash
# Session 21, call 4: 2130bfb (tj.cluster_merge_arrive: clusters of 2 count themselves in at
# the merge before the epilogue) in .device/bin; baaa8df's libtilejit_c.so (the merge's add
# after the epilogue) in .device/old. All GPU tests; 16 x 4K through the op, new and old
# interleaved, five rounds; the timeline's merge steps of both.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c4-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
lib() { [ $1 = new ] && echo $PWD/$B/libtilejit_c.so || echo $PWD/.device/old/libtilejit_c.so; }
for i in 1 2 3 4 5; do
  for X in new old; do
    TILEJIT_LIB=$(lib $X) OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c4-$X CELLS=32/8:16:4096,64/8:16:4096 \
      PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
  done
done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tee $R/ab_compare.txt | tail -3
for X in new old; do
  TILEJIT_LIB=$(lib $X) OUT=$R/tl_$X TILEJIT_CACHE_DIR=/tmp/c4-tl-$X CELLS=32/8:16:4096 LENS=1,4096 RUNS=3 \
    timeout 120 python3 bench/decode_timeline.py > $R/tl_$X.log 2>&1
  python3 bench/timeline_tail.py $R/tl_$X/timeline_raw.txt --steps | grep "last program" | tee $R/tail_$X.txt
  gzip -f $R/tl_$X/timeline_raw.txt
done
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
