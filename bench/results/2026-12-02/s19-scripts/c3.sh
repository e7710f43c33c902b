#!/usr/bin/env bash
# Session 19, call 3: main 45b42d2 (paged_store's fallback staged) in .device/bin: GPU tests;
# cold JIT of head 128 after the merge kernel's compile, ten processes; two whole `cold` runs,
# warm start and launch; 32/8 and 64/8 x 16 x 4K through the op, three times; the head-128
# matrix.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c3-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in $(seq 10); do
  rm -rf /tmp/c3-jit; TILEJIT_CACHE_DIR=/tmp/c3-jit CUDA_CACHE_DISABLE=1 \
    $B/tilejit_bench_jit cold paged_decode_reduce paged_decode_head128 | sed "s/^{/{\"lib\":\"new\",\"round\":$i,/"
done > $R/jit.jsonl 2>&1
python3 bench/results/2026-12-02/s18-scripts/jit_pairs.py $R/jit.jsonl | tee $R/jit_summary.txt
for i in 1 2; do rm -rf /tmp/c3-all; TILEJIT_CACHE_DIR=/tmp/c3-all CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done > $R/jit_all.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c3-all $B/tilejit_bench_jit warm; $B/tilejit_bench_jit launch; done >> $R/jit_all.jsonl 2>&1
cut -c1-220 $R/jit_all.jsonl
for i in 1 2 3; do
  OUT=$R/b16 TILEJIT_CACHE_DIR=/tmp/c3-b CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 60 python3 bench/bench_decode.py > $R/b16_$i.log 2>&1
done
python3 - $R/b16/decode_tilejit.jsonl <<'PY' | tee $R/b16_summary.txt
import json, sys
for r in (json.loads(l) for l in open(sys.argv[1]) if '"hq"' in l):
    peer = min(r[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in r)
    print(f"{r['hq']}/{r['hkv']} x 16 x 4K  op {r['tilejit_op_us']:.2f}  peer {peer:.1f}  {peer / r['tilejit_op_us']:.3f}x")
PY
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c3-m PARTITIONS=1024 BLOCK_NS=64 \
  timeout 220 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
