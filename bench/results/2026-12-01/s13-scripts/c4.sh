#!/usr/bin/env bash
# Session 13, call 4: batch 16 x 4K, the variants call 2 left out: 8 warps at depth 1 with
# 64-token tiles (one or two partitions, merge kernel or cluster), the cluster row with the
# grid laid out kv heads first, and with an occupancy hint of 2 programs per SM.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin TILEJIT_LIB=.device/bin/libtilejit_c.so
run() { local name=$1; shift; mkdir -p $R/$name
  env OUT=$R/$name TILEJIT_CACHE_DIR=/tmp/c4 CELLS=32/8:16:4096,64/8:16:4096 "$@" timeout 150 python3 bench/bench_decode.py > $R/$name/log.txt 2>&1
  echo "== $name"; grep -E "^(heads|32/8|64/8) " $R/$name/log.txt | tail -4; }
run w8 PARTITIONS=2048,4096 BLOCK_NS=64 WARPS=8 MERGE_IN_KERNEL=0,c
run heads_first PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c DECODE_PARAMS='{"grid_order": "heads_first"}'
run hint2 PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c DECODE_PARAMS='{"min_blocks_per_sm": 2}'
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
