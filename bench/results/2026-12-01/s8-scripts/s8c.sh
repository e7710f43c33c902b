#!/usr/bin/env bash
# Session 8, call 3: block numbers looked up one tile ahead (registers) A/B, whole matrix.
set -uo pipefail
OUT=${OUT:-/tmp/out}; B=.device/bin
export PYTHONUNBUFFERED=1 TILEJIT_LIB=$B/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers
export TILEJIT_CACHE_DIR=/tmp/tjc
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/env.txt 2>&1
run() { local name=$1; shift; mkdir -p $W/$name; echo "=== $name $(date +%T)"; env OUT=$W/$name "$@" python3 bench/bench_decode.py > $W/$name/log.txt 2>&1; python3 bench/decode_goals.py $W/$name/decode_tilejit.jsonl > $W/$name/goals.txt 2>&1; tail -4 $W/$name/goals.txt; }
run ahead PARTITIONS=1024 BLOCK_NS=64
run old PARTITIONS=1024 BLOCK_NS=64 TILEJIT_NVRTC_OPTIONS=-DTJ_PAGED_TABLE_LOOKAHEAD=0
S="CELLS=64/8:64:16384,64/8:64:4096,32/8:64:4096,32/8:16:4096,64/8:16:1024,32/8:256:16384"
run sub-old $S PARTITIONS=2048,4096 BLOCK_NS=32,64 TILEJIT_NVRTC_OPTIONS=-DTJ_PAGED_TABLE_LOOKAHEAD=0
run sub-ahead $S PARTITIONS=2048,4096 BLOCK_NS=32,64
run sub-ahead-mb5 $S PARTITIONS=2048,4096 BLOCK_NS=32 'DECODE_PARAMS={"min_blocks_per_sm": 5}'
run sub-old2 $S PARTITIONS=2048,4096 BLOCK_NS=32,64 TILEJIT_NVRTC_OPTIONS=-DTJ_PAGED_TABLE_LOOKAHEAD=0
run sub-ahead2 $S PARTITIONS=2048,4096 BLOCK_NS=32,64
cd $OUT && tar czf s8c.tgz w && rm -rf w
