#!/usr/bin/env bash
# Session 22, call 7: would a program that reads two kv heads' slices of each token row (one
# run of 512 bytes, four programs per row instead of eight) be faster? bench_decode.py
# HEAD_PACK=2 (new, a measurement): tilejit's variants read a [blocks, 16, 4, 256] view of the
# standard caches with zero-padded q (the head-256 kernel at twice the GQA ratio; each q head's
# own half of the output checked). 16 x 4K: a sweep of the packed shapes, then three rounds of
# the table's row (unpacked) against the packed ones, interleaved.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$PWD/$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
C=32/8:16:4096,64/8:16:4096
HEAD_PACK=2 OUT=$R/sweep TILEJIT_CACHE_DIR=/tmp/c7 CELLS=$C PARTITIONS=1024,2048 BLOCK_NS=32,64 \
  MERGE_IN_KERNEL=c,1 WARPS=4,8 timeout 200 python3 bench/bench_decode.py > $R/sweep.log 2>&1
grep -A3 "^heads" $R/sweep.log | head -4
python3 - $R/sweep/decode_tilejit.jsonl <<'PY' | tee $R/sweep.txt
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "hq" not in r: continue
    v = sorted((x, k[8:-3], r.get(k[:-3] + "_relerr")) for k, x in r.items() if k.startswith("tilejit_p") and k.endswith("_us"))
    print(r["hq"], r["hkv"], r["batch"], r["ctx"], "op", round(r.get("tilejit_op_us", 0), 2), " ".join(f"{n} {x:.2f} ({e:.1e})" for x, n, e in v))
    print("  errors:", {k: e[:80] for k, e in r.items() if k.endswith("_error")})
PY
for i in 1 2 3; do
  OUT=$R/base TILEJIT_CACHE_DIR=/tmp/c7 CELLS=$C PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c \
    timeout 100 python3 bench/bench_decode.py > $R/base_$i.log 2>&1
  HEAD_PACK=2 OUT=$R/pack TILEJIT_CACHE_DIR=/tmp/c7 CELLS=$C PARTITIONS=1024,2048 BLOCK_NS=32,64 MERGE_IN_KERNEL=c WARPS=4,8 \
    timeout 150 python3 bench/bench_decode.py > $R/pack_$i.log 2>&1
done
for X in base pack; do echo "== $X"; python3 - $R/$X/decode_tilejit.jsonl <<'PY'
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if "hq" not in r: continue
    v = sorted((x, k[8:-3]) for k, x in r.items() if k.startswith("tilejit_p") and k.endswith("_us"))
    print(r["hq"], r["hkv"], "op", round(r.get("tilejit_op_us", 0), 2), " ".join(f"{n} {x:.2f}" for x, n in v[:3]))
PY
done | tee $R/rounds.txt
tar -C $OUT -czf $OUT/c7.tgz r && rm -rf $R
