#!/usr/bin/env bash
# Setup: cp templates/paged_decode.mlir .device/pd_spec.mlir and apply s22-scripts/first_tile_early.patch to it.
# Session 22, call 5: does the start of a program's K/V stream matter? Template variant
# .device/pd_spec.mlir (a copy of paged_decode.mlir; measurement only): the first tile's K/V
# copies are issued before the sequence's length arrives (limit start + block_n instead of
# min(partition end, seq_len): exact for these cells, whose every first tile is whole), so its
# table lookups go out with the length's load instead of after it. The kernel alone
# (bench_decode's tilejit_<variant>_us; the op keeps the shipped template), five interleaved
# rounds: 16 x 4K (p2048 clusters of 2) and 1 x 4K (p512 clusters of 8).
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$PWD/$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
for i in 1 2 3 4 5; do for v in base spec; do
  [ $v = spec ] && export DECODE_TEMPLATE=$PWD/.device/pd_spec.mlir || unset DECODE_TEMPLATE
  OUT=$R/b16_$v TILEJIT_CACHE_DIR=/tmp/c5-$v CELLS=32/8:16:4096,64/8:16:4096 PARTITIONS=2048 BLOCK_NS=64 \
    MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/b16_${v}_$i.log 2>&1
  OUT=$R/b1_$v TILEJIT_CACHE_DIR=/tmp/c5-$v CELLS=32/8:1:4096,64/8:1:4096 PARTITIONS=512 BLOCK_NS=64 \
    MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/b1_${v}_$i.log 2>&1
done; done
python3 - $R > $R/compare.txt <<'PY'
import json, sys, collections
R = sys.argv[1]
for cells in ("b16", "b1"):
    t = collections.defaultdict(list)
    for v in ("base", "spec"):
        for line in open(f"{R}/{cells}_{v}/decode_tilejit.jsonl"):
            r = json.loads(line)
            if "hq" not in r: continue
            for k, x in r.items():
                if k.startswith("tilejit_p") and k.endswith("_us"):
                    t[(r["hq"], r["hkv"], r["batch"], r["ctx"], k, v)].append(x)
                    t[(r["hq"], r["hkv"], r["batch"], r["ctx"], k, v + "_err")].append(r[k[:-3] + "_relerr"])
    for key in sorted({k[:5] for k in t}):
        b, s = t[key + ("base",)], t[key + ("spec",)]
        print(key, "base", " ".join(f"{x:.2f}" for x in b), "| spec", " ".join(f"{x:.2f}" for x in s),
              f"| medians {sorted(b)[len(b)//2]:.2f} {sorted(s)[len(s)//2]:.2f} relerr {max(t[key + ('spec_err',)]):.1e}")
PY
cat $R/compare.txt
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
