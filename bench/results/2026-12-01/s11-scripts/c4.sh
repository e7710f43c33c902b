#!/usr/bin/env bash
# Session 11, call 4: the merge kernel's shape at batch 1 x 1K (8-32 pairs, 64-256-token
# partitions): reduce num_warps and heads per program, two rounds.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin TILEJIT_LIB=.device/bin/libtilejit_c.so
i=0
for round in 1 2; do for rp in '{}' '{"num_warps": 1}' '{"num_warps": 2}' '{"num_warps": 8}' '{"heads_per_program": 2}' '{"heads_per_program": 4}'; do
  i=$((i+1)); d=$R/v$round-$i; mkdir -p $d; echo "$rp" > $d/reduce_params.json
  OUT=$d TILEJIT_CACHE_DIR=/tmp/c4 CELLS=32/8:1:1024,64/8:1:1024,32/32:1:1024 PARTITIONS=64,128,256 BLOCK_NS=64 \
    REDUCE_PARAMS="$rp" python3 bench/bench_decode.py > $d/log.txt 2>&1; echo "== $rp"; tail -4 $d/log.txt; done; done
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
