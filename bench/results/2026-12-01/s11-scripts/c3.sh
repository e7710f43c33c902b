#!/usr/bin/env bash
# Session 11, call 3: the low-bandwidth cells, branch (bin) and main (ab) interleaved three
# times each (op and p1024_n64), to separate the branch's effect from the drift within a call.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
for round in 1 2 3; do for build in bin ab; do d=$R/$build$round; mkdir -p $d
  OUT=$d TILEJIT_LIB=.device/$build/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c3-$build PARTITIONS=1024 BLOCK_NS=64 \
    CELLS=32/8:1:1024,64/8:1:1024,32/8:1:4096,64/8:1:4096,32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096 \
    python3 bench/bench_decode.py > $d/log.txt 2>&1; done; done
python3 bench/decode_compare.py $R/{bin1,ab1,bin2,ab2,bin3,ab3}/decode_tilejit.jsonl > $R/compare.txt; cat $R/compare.txt
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
