#!/usr/bin/env bash
# Session 20, call 4: the merge by push, second form (the first program's partial sent with
# st.async counted in at the merger's barrier; the merger frees it with a relaxed arrival after
# its store) in .device/bin ("new"), against call 3's form (.device/v1lib: stores, then release
# arrivals) and main 04fbdb2's library (.device/oldlib): cluster GPU tests; 16 x 4K through the
# op, four interleaved rounds; the new library's timeline and tail at 32/8 x 16 x 4K.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c4-tests timeout 150 $B/tilejit_gpu_tests --gtest_brief=1 --gtest_filter='*cluster*:*Cluster*' > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3 4; do
  for X in new v1 old; do
    lib=(); [ $X = v1 ] && lib=(TILEJIT_DEVICE_LIB_DIR=$PWD/.device/v1lib/templates/device)
    [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$PWD/.device/oldlib/templates/device)
    env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c4-$X CELLS=32/8:16:4096,64/8:16:4096 \
      PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 120 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
  done
done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl | tail -3
 python3 decode_ab.py $R/ab_v1/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl | tail -3) | tee $R/ab_compare.txt
OUT=$R/tl TILEJIT_CACHE_DIR=/tmp/c4-tl CELLS=32/8:16:4096 LENS=1,4096 RUNS=3 timeout 200 python3 bench/decode_timeline.py > $R/tl.log 2>&1
python3 bench/timeline_tail.py $R/tl/timeline_raw.txt | tee $R/tail.txt
gzip -f $R/tl/timeline_raw.txt
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
