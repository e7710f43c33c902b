#!/usr/bin/env bash
# Session 15, call 2: main a9bd15f (device library: threadId bounded, mma stores per fragment,
# B fragments by ldmatrix.x4, TJ_PREFETCH_L1 switch) in .device/bin: GPU tests; nvrtc alone
# on emitted sources against the device libraries of 12eed54 / dfe633c / 3075f86
# (.device/jitab, 8 interleaved rounds); tilejit_bench_jit cold x4, warm, launch; 16 x 4K
# with the block-table prefetch into L1 (TILEJIT_NVRTC_OPTIONS=-DTJ_PREFETCH_L1=1) against L2,
# interleaved 4x, and the fixed cost of that grid both ways; the head-128 matrix.
# Staged: bash scripts/stage_for_device.sh tilejit_bench_jit; cp -r /tmp/jitab .device/jitab.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c2-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
bash .device/jitab/run.sh 8 > $R/jitab.txt 2>&1; cp .device/jitab/times.jsonl $R/jitab.jsonl; cat $R/jitab.txt
for i in 1 2 3 4; do rm -rf /tmp/c2-jit; TILEJIT_CACHE_DIR=/tmp/c2-jit CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done > $R/jit.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c2-jit $B/tilejit_bench_jit warm; $B/tilejit_bench_jit launch; done >> $R/jit.jsonl 2>&1
grep cold $R/jit.jsonl | grep paged_decode | cut -c1-120
for i in 1 2 3 4; do for X in L2 L1; do
  opt=""; [ $X = L1 ] && opt="-DTJ_PREFETCH_L1=1"
  OUT=$R/b16_$X TILEJIT_NVRTC_OPTIONS="$opt" TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2-$X CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 60 python3 bench/bench_decode.py > $R/b16_${X}_$i.log 2>&1
done; done
python3 - $R/b16_L2/decode_tilejit.jsonl $R/b16_L1/decode_tilejit.jsonl <<'PY' | tee $R/b16_compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p) if '"hq"' in l] for p in sys.argv[1:]]
for l2, l1 in zip(*runs):
    peer = min(l2[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in l2)
    peer1 = min(l1[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in l1)
    print(f"{l2['hq']}/{l2['hkv']} x 16 x 4K  op L2 {l2['tilejit_op_us']:.1f} L1 {l1['tilejit_op_us']:.1f}  "
          f"p2048_n64_c {l2['tilejit_p2048_n64_c_us']:.1f} / {l1['tilejit_p2048_n64_c_us']:.1f}  peer {peer:.1f} / {peer1:.1f}")
PY
for X in L2 L1; do
  opt=""; [ $X = L1 ] && opt="-DTJ_PREFETCH_L1=1"
  OUT=$R/fixed_$X TILEJIT_NVRTC_OPTIONS="$opt" TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2-f$X LENS=1,16,4096 \
    timeout 100 python3 bench/decode_fixed_cost.py > $R/fixed_$X.log 2>&1; grep -v "^#" $R/fixed_$X.log | cut -c1-160 | tail -8
done
OUT=$R/matrix TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2-m PARTITIONS=1024 BLOCK_NS=64 \
  timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
