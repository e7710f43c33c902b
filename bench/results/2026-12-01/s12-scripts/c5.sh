#!/usr/bin/env bash
# Session 12, call 5: the head-128 matrix through the op again (a second run of the final
# table, on whichever host this is), and heads 192/256 at batch 1 through the op after their
# new rows.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
OUT=$R/matrix2 TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c5-matrix PARTITIONS=1024 BLOCK_NS=64 \
  timeout 330 python3 bench/bench_decode.py > $R/matrix2.log 2>&1
python3 bench/decode_goals.py $R/matrix2/decode_tilejit.jsonl > $R/matrix2/goals.txt; cat $R/matrix2/goals.txt
for h in 256 192; do
  OUT=$R/op-head$h HEAD_SIZE=$h TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c5-h$h \
    CELLS=32/8:1:1024,64/8:1:1024,32/8:1:4096,64/8:1:4096 PARTITIONS=256 BLOCK_NS=32 \
    timeout 80 python3 bench/bench_decode.py > $R/op-head$h.log 2>&1; grep -A6 "^heads " $R/op-head$h.log; done
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
