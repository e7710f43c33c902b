#!/usr/bin/env bash
# Session 18, call 4: main (61971b0) in .device/bin against 58582c5's device library
# (.device/oldlib): cold JIT of head 128 after the merge kernel's compile, new and old
# alternating twenty times (to catch the host's fast phases); four whole `cold` runs, warm
# start and launch with main; 32/8 and 64/8 x 16 x 4K through the op, four times.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
OLD=$PWD/.device/oldlib/templates/device
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
for i in $(seq 20); do for X in new old; do
  lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR=$OLD)
  rm -rf /tmp/c4-jit; env "${lib[@]}" TILEJIT_CACHE_DIR=/tmp/c4-jit CUDA_CACHE_DISABLE=1 \
    $B/tilejit_bench_jit cold paged_decode_reduce paged_decode_head128 | sed "s/^{/{\"lib\":\"$X\",\"round\":$i,/"
done; done > $R/jit.jsonl 2>&1
python3 bench/results/2026-12-02/s18-scripts/jit_pairs.py $R/jit.jsonl | tee $R/jit_summary.txt
for i in 1 2 3 4; do rm -rf /tmp/c4-all; TILEJIT_CACHE_DIR=/tmp/c4-all CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done > $R/jit_all.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c4-all $B/tilejit_bench_jit warm; $B/tilejit_bench_jit launch; done >> $R/jit_all.jsonl 2>&1
sed 's/^{/{"lib":"new","round":0,/' $R/jit_all.jsonl | python3 bench/results/2026-12-02/s18-scripts/jit_pairs.py /dev/stdin | tee $R/jit_all_summary.txt
grep -v '"cold"' $R/jit_all.jsonl | tail -6
for i in 1 2 3 4; do
  OUT=$R/b16 TILEJIT_CACHE_DIR=/tmp/c4-b CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 60 python3 bench/bench_decode.py > $R/b16_$i.log 2>&1
done
python3 - $R/b16/decode_tilejit.jsonl <<'PY' | tee $R/b16_summary.txt
import json, sys
for r in (json.loads(l) for l in open(sys.argv[1]) if '"hq"' in l):
    peer = min(r[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in r)
    print(f"{r['hq']}/{r['hkv']} x 16 x 4K  op {r['tilejit_op_us']:.2f}  peer {peer:.1f}  {peer / r['tilejit_op_us']:.3f}x")
PY
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
