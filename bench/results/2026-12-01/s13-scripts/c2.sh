#!/usr/bin/env bash
# Session 13, call 2: the batch-16 low-bandwidth cells. (A) 4K: one or two partitions per
# (sequence, kv head) with deeper prefetch, 128-token tiles and 8 warps; (B) 1K likewise;
# (C) the cluster scheduling policy preference (.device/ab: TILEJIT_CLUSTER_POLICY, 1 spread,
# 2 load balancing) on the cluster variants at 4K.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
run() { local name=$1; shift; mkdir -p $R/$name
  env OUT=$R/$name TILEJIT_CACHE_DIR=/tmp/c2 "$@" python3 bench/bench_decode.py > $R/$name/log.txt 2>&1
  echo "== $name"; grep -E "^(heads|32/8|64/8) " $R/$name/log.txt | tail -3; }
M=TILEJIT_LIB=.device/bin/libtilejit_c.so
C4="CELLS=32/8:16:4096,64/8:16:4096"; C1="CELLS=32/8:16:1024,64/8:16:1024"
run a1 $M $C4 PARTITIONS=2048,4096 BLOCK_NS=64 DEPTHS=2,3 WARPS=4,8 MERGE_IN_KERNEL=0,c
run a2 $M $C4 PARTITIONS=2048,4096 BLOCK_NS=128 DEPTHS=1,2 WARPS=4,8 MERGE_IN_KERNEL=0,c
run b $M $C1 PARTITIONS=512,1024 BLOCK_NS=64,128 DEPTHS=1,2 WARPS=4,8 MERGE_IN_KERNEL=0,c
A=TILEJIT_LIB=.device/ab/libtilejit_c.so
run c0 $A $C4 PARTITIONS=512,1024,2048 BLOCK_NS=64 MERGE_IN_KERNEL=c
run c1 $A $C4 PARTITIONS=512,1024,2048 BLOCK_NS=64 MERGE_IN_KERNEL=c TILEJIT_CLUSTER_POLICY=1
run c2 $A $C4 PARTITIONS=512,1024,2048 BLOCK_NS=64 MERGE_IN_KERNEL=c TILEJIT_CLUSTER_POLICY=2
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
