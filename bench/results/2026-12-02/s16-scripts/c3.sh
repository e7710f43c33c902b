#!/usr/bin/env bash
# Session 16, call 3: the in-kernel timeline of decode launches (-DTJ_TRACE=1 through
# bench/decode_timeline.py), main + the trace switch: 32/8 x 16 x 4K at 1 and 4096 tokens,
# 32/8 x 64 x 4K and 32/8 x 1 x 1K at full length; five runs each.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
OUT=$R TILEJIT_CACHE_DIR=/tmp/c3-t CELLS=32/8:16:4096 LENS=1,64,4096 RUNS=5 timeout 120 python3 bench/decode_timeline.py > $R/t16.log 2>&1
OUT=$R TILEJIT_CACHE_DIR=/tmp/c3-t CELLS=32/8:64:4096,32/8:1:1024 LENS=1,4096 RUNS=5 timeout 120 python3 bench/decode_timeline.py > $R/tother.log 2>&1
tail -3 $R/t16.log
python3 - $R/timeline.jsonl <<'PY' | tee $R/timeline_summary.txt
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    for k, v in r["kernels"].items():
        pts = " ".join(f"{p} {v.get(p + '_median_us', 0):.2f}/{v.get(p + '_max_us', 0):.2f}" for p in ("scalar", "lookup", "wait1", "wait2", "epilogue"))
        print(f"{r['cell']:14s} t{r['tokens']:<5d} run {r['run']} event {r['event_us']:6.2f} {k} n{v['programs']} span {v['span_us']:6.2f} entry-spread {v['entry_spread_us']:.2f} exit first/med {v['exit_first_us']:.2f}/{v['exit_median_us']:.2f} | {pts}")
PY
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
