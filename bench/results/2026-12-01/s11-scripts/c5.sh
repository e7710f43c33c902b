#!/usr/bin/env bash
# Session 11, call 5: kv_layout=shuffled (bench_decode.py KV_LAYOUT) under the occupancy hint
# the placed layout measured (5) and none (0, sm_90's tuning for shuffled now), partitions 1024
# x block_n 32/64; the op takes the table's tiling and the tuning's hint.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin TILEJIT_LIB=.device/bin/libtilejit_c.so
for hint in 5 0; do d=$R/hint$hint; mkdir -p $d
  OUT=$d TILEJIT_CACHE_DIR=/tmp/c5 KV_LAYOUT=shuffled DECODE_PARAMS="{\"min_blocks_per_sm\": $hint}" \
    CELLS=32/8:64:4096,32/32:16:4096,64/8:16:4096,32/8:1:16384,64/8:256:4096 PARTITIONS=1024 BLOCK_NS=32,64 \
    python3 bench/bench_decode.py > $d/log.txt 2>&1; echo "== hint $hint"; tail -7 $d/log.txt; done
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
