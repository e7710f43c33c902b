#!/usr/bin/env bash
# Setup: cp -r templates/device .device/librot and apply
# s22-scripts/rotate.patch to the copy (its paths name templates/device/cuda/tj/shared.h).
# Session 22, call 1: do the 8 kv heads of one (sequence, partition) pace each other because
# they read the same token rows at the same time? Measurement hack (a copy of the device
# library in .device/librot, TJ_ROTATE): kv head h reads its partition's tiles rotated by
# h * R tokens (results wrong, bytes read the same). 16 x 4K through the op, main's library
# (R = 0) against R = 64 (one tile per head), 256 (heads spread over the partition), four
# interleaved rounds; the loop ends' spread of each (timeline).
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$PWD/$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
run() {  # variant rotation round
  if [ $2 = 0 ]; then unset TILEJIT_DEVICE_LIB_DIR TILEJIT_NVRTC_OPTIONS
  else export TILEJIT_DEVICE_LIB_DIR=$PWD/.device/librot TILEJIT_NVRTC_OPTIONS="-DTJ_ROTATE=$2 -DTJ_ROTATE_P=2048"; fi
  OUT=$R/ab_$1 TILEJIT_CACHE_DIR=/tmp/c1-$1 CELLS=32/8:16:4096,64/8:16:4096 PARTITIONS=2048 BLOCK_NS=64 \
    MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/ab_$1_$3.log 2>&1
}
for i in 1 2 3 4; do run r0 0 $i; run r64 64 $i; run r256 256 $i; done
for X in r64 r256; do (cd bench && python3 decode_ab.py $R/ab_$X/decode_tilejit.jsonl $R/ab_r0/decode_tilejit.jsonl) > $R/ab_${X}_vs_r0.txt 2>&1; tail -4 $R/ab_${X}_vs_r0.txt; done
for V in "r0 0" "r256 256"; do set -- $V
  if [ $2 = 0 ]; then unset TILEJIT_DEVICE_LIB_DIR TILEJIT_NVRTC_OPTIONS
  else export TILEJIT_DEVICE_LIB_DIR=$PWD/.device/librot TILEJIT_NVRTC_OPTIONS="-DTJ_ROTATE=$2 -DTJ_ROTATE_P=2048"; fi
  OUT=$R/tl_$1 TILEJIT_CACHE_DIR=/tmp/c1-tl-$1 CELLS=32/8:16:4096 LENS=4096 RUNS=3 timeout 120 python3 bench/decode_timeline.py > $R/tl_$1.log 2>&1
  python3 bench/timeline_tail.py $R/tl_$1/timeline_raw.txt --coupling > $R/tail_$1.txt 2>&1; head -30 $R/tail_$1.txt
  gzip -f $R/tl_$1/timeline_raw.txt
done
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
