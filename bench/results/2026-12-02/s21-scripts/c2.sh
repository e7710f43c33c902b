#!/usr/bin/env bash
# Session 21, call 2: the same build as call 1 (baaa8df). Does the memory order of the cache
# make the loop-end spread? tilejit over K/V stored heads-major within each block (KV_LAYOUT=hnd:
# a (block, head) is one 4 KB run; the peers keep the standard order) against the standard
# order, three interleaved rounds; then the head-128 matrix again (a second host sample).
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
CELLS=32/8:16:4096,64/8:16:4096,32/8:1:4096,32/8:64:4096
for i in 1 2 3; do
  for X in standard hnd; do
    KV_LAYOUT=$X OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c2-$X CELLS=$CELLS \
      PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
  done
done
(cd bench && python3 decode_ab.py $R/ab_hnd/decode_tilejit.jsonl $R/ab_standard/decode_tilejit.jsonl) | tee $R/ab_compare.txt | tail -6
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c2-m PARTITIONS=1024 BLOCK_NS=64 timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
(cd bench && python3 decode_goals.py $R/matrix/decode_tilejit.jsonl; python3 decode_cells.py $R/matrix/decode_tilejit.jsonl) > $R/matrix/goals.txt; sed -n 5,9p $R/matrix/goals.txt; grep "x 16 x 4K\|x 64 x 1K" $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
