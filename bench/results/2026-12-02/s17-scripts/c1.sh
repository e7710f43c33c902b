#!/usr/bin/env bash
# Session 17, call 1: cluster_merge_store pushing slices before one barrier (branch push-merge,
# .device/bin) against main's device library d24753a (TILEJIT_DEVICE_LIB_DIR=.device/oldlib,
# same binary): GPU tests; 16 x 4K and the batch-1 cluster cells interleaved four times; the
# in-kernel timeline at 16 x 4K, new library.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
TILEJIT_CACHE_DIR=/tmp/c1-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
OLD=$PWD/.device/oldlib/templates/device
for i in 1 2 3 4; do for X in new old; do
  if [ $X = old ]; then export TILEJIT_DEVICE_LIB_DIR=$OLD; else unset TILEJIT_DEVICE_LIB_DIR; fi
  OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c1-b$X CELLS=32/8:16:4096,64/8:16:4096,32/8:1:4096,64/8:1:1024 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
unset TILEJIT_DEVICE_LIB_DIR
python3 - $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl <<'PY' | tee $R/ab_compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p) if '"hq"' in l] for p in sys.argv[1:]]
for new, old in zip(*runs):
    peer = min(new[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in new)
    print(f"{new['hq']}/{new['hkv']} x {new['batch']} x {new['ctx']}  op new {new['tilejit_op_us']:.2f} old {old['tilejit_op_us']:.2f}  peer {peer:.1f}  new {peer / new['tilejit_op_us']:.3f}x old {peer / old['tilejit_op_us']:.3f}x")
PY
OUT=$R/tl TILEJIT_CACHE_DIR=/tmp/c1-t CELLS=32/8:16:4096 LENS=1,4096 RUNS=3 \
  timeout 100 python3 bench/decode_timeline.py > $R/tl.log 2>&1
python3 - $R/tl/timeline.jsonl <<'PY' | tee $R/timeline_summary.txt
import json, sys
P = ("lookup", "wait1", "epilogue", "merge_copies_done", "merge_staged", "merge_written")
for l in open(sys.argv[1]):
    r = json.loads(l)
    for k, v in r["kernels"].items():
        pts = " ".join(f"{p} {v.get(p + '_median_us', 0):.2f}/{v.get(p + '_max_us', 0):.2f}" for p in P)
        print(f"{r['cell']:14s} t{r['tokens']:<5d} run {r['run']} event {r['event_us']:6.2f} span {v['span_us']:6.2f} exit first/med {v['exit_first_us']:.2f}/{v['exit_median_us']:.2f} | {pts}")
PY
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
