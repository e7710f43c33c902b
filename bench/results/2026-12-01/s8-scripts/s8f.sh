#!/usr/bin/env bash
# Session 8, calls 6-7: heads 192 and 256: partition sizes at 32-token tiles (PARTITIONS=1024: the op check).
set -uo pipefail
OUT=${OUT:-/tmp/out}; B=.device/bin
export PYTHONUNBUFFERED=1 TILEJIT_LIB=$B/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers
export TILEJIT_CACHE_DIR=/tmp/tjc
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/env.txt 2>&1
C=32/8:1:1024,32/8:1:16384,32/8:16:1024,32/8:16:4096,32/8:16:16384,32/8:64:1024,32/8:64:16384,32/8:256:4096
for h in ${HEADS:-256 192}; do
  mkdir -p $W/head$h; echo "=== head $h $(date +%T)"
  OUT=$W/head$h HEAD_SIZE=$h CELLS=$C PARTITIONS=${PARTITIONS:-128,512,1024,4096} BLOCK_NS=32 timeout 200 python3 bench/bench_decode.py > $W/head$h/log.txt 2>&1
  tail -10 $W/head$h/log.txt | cut -c1-160
done
cd $OUT && tar czf s8f.tgz w && rm -rf w
