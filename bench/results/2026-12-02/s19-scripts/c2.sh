#!/usr/bin/env bash
# Session 19, call 2: the branch staged-store-fallback compiled into .device/bin ("new": store
# and paged_store fallbacks staged, loads as on main) against main's library (.device/oldlib,
# 6f91f8d, "old", through TILEJIT_DEVICE_LIB_DIR): GPU tests; reshape_and_cache /
# merge_attn_states new and old, twice each; the decode cells that run paged_decode_reduce
# through the op, interleaved twice; cold JIT of the changed kernels and the head-128 decode
# alternating eight times; 32/8 and 64/8 x 16 x 4K through the op twice.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
OLD=$PWD/.device/oldlib/templates/device
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c2-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2; do for X in new old; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  env "${lib[@]}" OUT=$R/mem_$X TILEJIT_CACHE_DIR=/tmp/c2-m$X timeout 90 python3 bench/bench_memory_kernels.py > $R/mem_${X}_$i.txt 2>&1
  echo "== mem $X $i"; grep -E "^(cache|merge) " $R/mem_${X}_$i.txt
done; done
CELLS=32/8:1:16384,64/8:1:16384,32/8:16:16384,64/8:256:16384
for i in 1 2; do for X in new old; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c2-ab$X CELLS=$CELLS PARTITIONS=1024 BLOCK_NS=64 \
    timeout 120 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tail -5 | tee $R/ab_compare.txt
for i in $(seq 8); do for X in new old; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  rm -rf /tmp/c2-jit; env "${lib[@]}" TILEJIT_CACHE_DIR=/tmp/c2-jit CUDA_CACHE_DISABLE=1 \
    $B/tilejit_bench_jit cold merge_attn_states paged_decode_head128 reshape_and_cache paged_decode_reduce | sed "s/^{/{\"lib\":\"$X\",\"round\":$i,/"
done; done > $R/jit.jsonl 2>&1
python3 bench/results/2026-12-02/s18-scripts/jit_pairs.py $R/jit.jsonl | tee $R/jit_summary.txt
for i in 1 2; do
  OUT=$R/b16 TILEJIT_CACHE_DIR=/tmp/c2-b CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 60 python3 bench/bench_decode.py > $R/b16_$i.log 2>&1
done
python3 - $R/b16/decode_tilejit.jsonl <<'PY' | tee $R/b16_summary.txt
import json, sys
for r in (json.loads(l) for l in open(sys.argv[1]) if '"hq"' in l):
    peer = min(r[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in r)
    print(f"{r['hq']}/{r['hkv']} x 16 x 4K  op {r['tilejit_op_us']:.2f}  peer {peer:.1f}  {peer / r['tilejit_op_us']:.3f}x")
PY
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
