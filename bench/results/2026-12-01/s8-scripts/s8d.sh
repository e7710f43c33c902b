#!/usr/bin/env bash
# Session 8, call 4: partitions x block_n x prefetch depth at the low-bandwidth batch-16/64 cells.
set -uo pipefail
OUT=${OUT:-/tmp/out}; B=.device/bin
export PYTHONUNBUFFERED=1 TILEJIT_LIB=$B/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers
export TILEJIT_CACHE_DIR=/tmp/tjc
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/env.txt 2>&1
run() { local name=$1; shift; mkdir -p $W/$name; echo "=== $name $(date +%T)"; env OUT=$W/$name "$@" python3 bench/bench_decode.py > $W/$name/log.txt 2>&1; grep "=" $W/$name/log.txt | cut -c1-200; }
run depth CELLS=32/8:16:4096,64/8:16:4096,32/8:16:1024,64/8:16:1024,64/8:64:1024,32/32:16:1024 PARTITIONS=512,1024,2048 BLOCK_NS=32,64 DEPTHS=1,2,3
run depth-small CELLS=32/8:1:1024,64/8:1:1024,32/32:1:1024,32/8:1:4096 PARTITIONS=64,128,256 BLOCK_NS=32,64 DEPTHS=1,2
cd $OUT && tar czf s8d.tgz w && rm -rf w
