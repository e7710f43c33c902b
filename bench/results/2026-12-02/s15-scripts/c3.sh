#!/usr/bin/env bash
# Session 15, call 3: batch 16 x 4K with three partitions per sequence (clusters of 3: 384
# programs, 3 per SM, all resident) against the table's two (p2048_n64_c), main a9bd15f in
# .device/bin. Staged: bash scripts/stage_for_device.sh.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
C=32/8:16:4096,64/8:16:4096
for i in 1 2; do
  OUT=$R/a_$i TILEJIT_CACHE_DIR=/tmp/c3 CELLS=$C PARTITIONS=1408,2048 BLOCK_NS=64 MERGE_IN_KERNEL=c,0 DEPTHS=1,2 timeout 150 python3 bench/bench_decode.py > $R/a_$i.log 2>&1
  OUT=$R/b_$i TILEJIT_CACHE_DIR=/tmp/c3 CELLS=$C PARTITIONS=1376,1408 BLOCK_NS=32 MERGE_IN_KERNEL=c,0 DEPTHS=1,2 timeout 150 python3 bench/bench_decode.py > $R/b_$i.log 2>&1
done
python3 - $R <<'PY' | tee $R/summary.txt
import json, sys, glob, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for p in sorted(glob.glob(sys.argv[1] + "/*_*/decode_tilejit.jsonl")):
    for l in open(p):
        r = json.loads(l)
        if '"hq"' not in l and "hq" not in r: continue
        cell = f"{r['hq']}/{r['hkv']} x {r['batch'] if 'batch' in r else r.get('b')} x {r.get('ctx')}"
        peer = min(r[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in r)
        rows[cell]["peer"].append(peer)
        for k, v in r.items():
            if k.startswith("tilejit_") and k.endswith("_us"): rows[cell][k[8:-3]].append(v)
for cell, d in rows.items():
    peer = sorted(d["peer"])[len(d["peer"]) // 2]
    print(cell, f"best peer median {peer:.1f}")
    for k, v in sorted(d.items(), key=lambda kv: min(kv[1])):
        if k != "peer": print(f"   {k:22s} {' '.join(f'{x:.1f}' for x in v)}  ({peer / min(v):.3f}x at best)")
PY
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
