#!/usr/bin/env bash
# Session 20, call 2: where kv_split's time goes. The same kv_split variants at 32/8 and 64/8
# x 16 x 4K under the channel's experiment switches (TILEJIT_NVRTC_OPTIONS, part of every
# cache key): as built; one arrival per warp; no waits or arrivals (races, wrong results);
# no channel traffic at all (wrong results). Baseline p2048_n64_c beside them.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
OUT=$R/base TILEJIT_CACHE_DIR=/tmp/c2-b CELLS=32/8:16:4096,64/8:16:4096 MERGE_IN_KERNEL=c \
  PARTITIONS=2048 BLOCK_NS=64 timeout 90 python3 bench/bench_decode.py > $R/base.log 2>&1
for v in plain:'' warp:-DTJ_CHANNEL_WARP_ARRIVE=1 nosync:-DTJ_CHANNEL_NO_SYNC=1 notraffic:-DTJ_CHANNEL_NO_TRAFFIC=1; do
  name=${v%%:*}; opt=${v#*:}
  OUT=$R/$name TILEJIT_NVRTC_OPTIONS="$opt" TILEJIT_CACHE_DIR=/tmp/c2-$name CELLS=32/8:16:4096,64/8:16:4096 \
    MERGE_IN_KERNEL=c PARTITIONS=2048 BLOCK_NS=64,128 DEPTHS=1,2 DECODE_PARAMS='{"kv_split": 1}' \
    timeout 150 python3 bench/bench_decode.py > $R/$name.log 2>&1
done
for f in base plain warp nosync notraffic; do echo "== $f"; grep -A3 "^heads" $R/$f.log | tail -2; grep "^[36]" $R/$f.log | grep "=" ; done | tee $R/summary.txt
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
