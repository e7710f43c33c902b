#!/usr/bin/env bash
# Session 16, call 5: main 35f98a1 + the merge's trace points (.device/bin, library embedded)
# against the same with a library that skips the copies of a tile wholly past the limit
# (.device/libx through TILEJIT_DEVICE_LIB_DIR): in-kernel timelines of both; 16 x 4K, 16 x 1K
# and batch 1 through the op, interleaved three times; GPU tests with libx.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
LIBX=$PWD/.device/libx
for X in main libx; do
  if [ $X = libx ]; then export TILEJIT_DEVICE_LIB_DIR=$LIBX; else unset TILEJIT_DEVICE_LIB_DIR; fi
  OUT=$R/tl_$X TILEJIT_CACHE_DIR=/tmp/c5-t$X CELLS=32/8:16:4096,32/8:1:1024 LENS=1,4096 RUNS=3 \
    timeout 100 python3 bench/decode_timeline.py > $R/tl_$X.log 2>&1
  python3 - $R/tl_$X/timeline.jsonl $X <<'PY' | tee -a $R/timeline_summary.txt
import json, sys
P = ("scalar", "lookup", "wait1", "wait2", "epilogue", "merge_copies_done", "merge_staged", "merge_written")
for l in open(sys.argv[1]):
    r = json.loads(l)
    for k, v in r["kernels"].items():
        pts = " ".join(f"{p} {v.get(p + '_median_us', 0):.2f}/{v.get(p + '_max_us', 0):.2f}" for p in P)
        print(f"{sys.argv[2]} {r['cell']:14s} t{r['tokens']} run {r['run']} n{v['programs']} span {v['span_us']:6.2f} exit first/med {v['exit_first_us']:.2f}/{v['exit_median_us']:.2f} | {pts}")
PY
done
for i in 1 2 3; do for X in main libx; do
  if [ $X = libx ]; then export TILEJIT_DEVICE_LIB_DIR=$LIBX; else unset TILEJIT_DEVICE_LIB_DIR; fi
  OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c5-b$X CELLS=32/8:16:4096,64/8:16:4096,32/8:16:1024,32/8:1:1024,64/8:1:1024,32/8:1:4096,32/32:1:1024 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
python3 - $R/ab_libx/decode_tilejit.jsonl $R/ab_main/decode_tilejit.jsonl <<'PY' | tee $R/ab_compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p) if '"hq"' in l] for p in sys.argv[1:]]
for new, old in zip(*runs):
    peer = min(new[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in new)
    print(f"{new['hq']}/{new['hkv']} x {new['batch']} x {new['ctx']}  op libx {new['tilejit_op_us']:.2f} main {old['tilejit_op_us']:.2f}  peer {peer:.1f}  libx {peer / new['tilejit_op_us']:.3f}x main {peer / old['tilejit_op_us']:.3f}x")
PY
TILEJIT_DEVICE_LIB_DIR=$LIBX TILEJIT_CACHE_DIR=/tmp/c5-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests_libx.txt 2>&1; tail -2 $R/gpu_tests_libx.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests_libx.txt | head -30
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
