#!/usr/bin/env bash
# A/B: HEAD's lib (old: no table prefetch, reduce reads seq_len after its wait) vs the work tree's.
set -uo pipefail
OUT=${OUT:-/tmp/out}
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=.device/bin
CELLS=32/8:1:1024,64/8:1:1024,32/32:1:1024,32/8:1:4096,32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096,64/8:64:1024
for round in 1 2; do
  for which in old new; do
    lib=.device/bin/libtilejit_c.so; [ $which = old ] && lib=.device/old/libtilejit_c.so
    extra=""; [ $which = new ] && [ $round = 1 ] && extra="BLOCK_NS=64,128 WARPS=4,8"
    mkdir -p $OUT/ab/$which$round
    echo "=== $which round $round $(date +%T)"
    env TILEJIT_LIB=$lib TILEJIT_CACHE_DIR=/tmp/cache-$which OUT=$OUT/ab/$which$round CELLS=$CELLS PARTITIONS=128,256,512 BLOCK_NS=64 $extra \
      python3 bench/bench_decode.py > $OUT/ab/$which$round/log.txt 2>&1
    tail -11 $OUT/ab/$which$round/log.txt
  done
done
