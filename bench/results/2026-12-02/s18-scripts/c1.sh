#!/usr/bin/env bash
# Session 18, call 1: the device library with fewer functions per kernel (elementwise ops
# without lambdas or per-element helpers, tile registers as plain arrays, threadId's range as
# a mask, prefetch rounds from the table width) in .device/bin, against main's 58582c5
# (TILEJIT_DEVICE_LIB_DIR=.device/oldlib, same binary): GPU tests; cold JIT interleaved
# new old old new, three times; 16 x 4K and batch-1 cells through the op, four rounds each;
# the head-128 matrix with the new library.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
OLD=$PWD/.device/oldlib/templates/device
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c1-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3; do for X in new old old new; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  rm -rf /tmp/c1-jit; env "${lib[@]}" TILEJIT_CACHE_DIR=/tmp/c1-jit CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold | sed "s/^{/{\"lib\":\"$X\",/"
done; done > $R/jit.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c1-jit $B/tilejit_bench_jit warm; $B/tilejit_bench_jit launch; done > $R/jit_warm_launch.jsonl 2>&1
python3 - $R/jit.jsonl <<'PY' | tee $R/jit_summary.txt
import json, sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    if r.get("mode") == "cold": d[(r["template"], r["lib"])].append(r["total_s"])
for (t, lib), w in sorted(d.items()):
    print(f"{t:22s} {lib}  median {st.median(w):.3f}  [{min(w):.3f}-{max(w):.3f}]  all {' '.join(f'{x:.3f}' for x in w)}")
PY
tail -6 $R/jit_warm_launch.jsonl
for i in 1 2 3 4; do for X in new old; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c1-b$X CELLS=32/8:16:4096,64/8:16:4096,32/8:1:4096,64/8:1:1024 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tee $R/ab_compare.txt
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c1-m PARTITIONS=1024 BLOCK_NS=64 \
  timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
