#!/usr/bin/env bash
# Session 17, call 4: main eed37d8 (.device/bin): cold JIT (fresh cache, CUDA_CACHE_DISABLE=1,
# four processes), warm start, launch; 32/8 and 64/8 x 16 x 4K through the op four times; the
# head-128 matrix through the op.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
for i in 1 2 3 4; do rm -rf /tmp/c4-jit; TILEJIT_CACHE_DIR=/tmp/c4-jit CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done > $R/jit.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c4-jit $B/tilejit_bench_jit warm; $B/tilejit_bench_jit launch; done >> $R/jit.jsonl 2>&1
python3 - $R/jit.jsonl <<'PY' | tee $R/jit_summary.txt
import json, sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    if r.get("mode") == "cold": d[r["template"]].append((r["total_s"], r["cpu_s"], r["host_steal_s"]))
for t, v in sorted(d.items()):
    w = [x[0] for x in v]; c = [x[1] for x in v]; s = [x[2] for x in v]
    print(f"{t:22s} wall median {st.median(w):.3f} [{min(w):.3f}-{max(w):.3f}]  cpu median {st.median(c):.3f}  steal max {max(s):.2f}")
PY
grep -v '"cold"' $R/jit.jsonl | tail -8
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
OUT=$R/matrix TILEJIT_CACHE_DIR=/tmp/c4-m PARTITIONS=1024 BLOCK_NS=64 \
  timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
