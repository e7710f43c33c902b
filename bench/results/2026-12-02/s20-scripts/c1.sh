#!/usr/bin/env bash
# Session 20, call 1: kv_split (a cluster of 2 split by tensor: rank 0 K + softmax, rank 1 V +
# output, probabilities passed through a DSMEM ring) in .device/bin. GPU tests (new kv_split
# cases); then 32/8 and 64/8 x 16 x 4K: the table's p2048_n64_c (merge by tokens) against
# kv_split variants (64/128-token tiles, depth 1/2), two interleaved rounds.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c1-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 --gtest_filter='*kv_split*:*KvSplit*:*cluster*:*Cluster*:*ratio4*:*prefetch2*' > $R/gpu_tests_kv.txt 2>&1; tail -3 $R/gpu_tests_kv.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests_kv.txt | head -40
for i in 1 2; do
  OUT=$R/base TILEJIT_CACHE_DIR=/tmp/c1-b CELLS=32/8:16:4096,64/8:16:4096 MERGE_IN_KERNEL=c \
    PARTITIONS=2048 BLOCK_NS=64 timeout 90 python3 bench/bench_decode.py > $R/base_$i.log 2>&1
  OUT=$R/kv TILEJIT_CACHE_DIR=/tmp/c1-b CELLS=32/8:16:4096,64/8:16:4096 MERGE_IN_KERNEL=c \
    PARTITIONS=2048 BLOCK_NS=64,128 DEPTHS=1,2 DECODE_PARAMS='{"kv_split": 1}' \
    timeout 150 python3 bench/bench_decode.py > $R/kv_$i.log 2>&1
done
python3 - $R/base/decode_tilejit.jsonl $R/kv/decode_tilejit.jsonl <<'PY' | tee $R/summary.txt
import json, sys
for path in sys.argv[1:]:
    print(path.split('/')[-2])
    for r in (json.loads(l) for l in open(path) if '"hq"' in l):
        peer = min(r[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in r)
        vs = "  ".join(f"{k[:-3]} {r[k]:.2f} ({r.get(k[:-3] + '_relerr', float('nan')):.1e})"
                       for k in sorted(r) if k.startswith("p") and k.endswith("_us"))
        print(f"  {r['hq']}/{r['hkv']}  op {r.get('tilejit_op_us', 0):.2f}  peer {peer:.1f}  {vs}")
PY
grep -h "error" $R/kv/decode_tilejit.jsonl | cut -c1-400 | head -5
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
