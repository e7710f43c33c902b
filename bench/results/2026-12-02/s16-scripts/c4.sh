#!/usr/bin/env bash
# Session 16, call 4: cluster_merge_store with its remote loads batched (main d15444f, .device/bin)
# against the commit before it (.device/ab): GPU tests; 16 x 4K and batch 1 x 1K / 4K through
# the op, interleaved three times; the in-kernel timeline of both at 16 x 4K and 1 x 1K; the
# head-128 matrix through the op (new build).
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c4-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3; do for X in bin ab; do
  OUT=$R/ab_$X TILEJIT_LIB=.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-b$X CELLS=32/8:16:4096,64/8:16:4096,32/8:1:1024,64/8:1:1024,32/8:1:4096,32/32:1:1024 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
python3 - $R/ab_bin/decode_tilejit.jsonl $R/ab_ab/decode_tilejit.jsonl <<'PY' | tee $R/ab_compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p) if '"hq"' in l] for p in sys.argv[1:]]
for new, old in zip(*runs):
    peer = min(new[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in new)
    print(f"{new['hq']}/{new['hkv']} x {new['batch']} x {new['ctx']}  op new {new['tilejit_op_us']:.2f} old {old['tilejit_op_us']:.2f}  peer {peer:.1f}  new {peer / new['tilejit_op_us']:.3f}x old {peer / old['tilejit_op_us']:.3f}x")
PY
for X in bin ab; do
  OUT=$R/tl_$X TILEJIT_LIB=.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-t$X CELLS=32/8:16:4096,32/8:1:1024 LENS=4096 RUNS=3 \
    timeout 100 python3 bench/decode_timeline.py > $R/tl_$X.log 2>&1
  python3 - $R/tl_$X/timeline.jsonl <<'PY' | tee -a $R/timeline_summary.txt
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    for k, v in r["kernels"].items():
        print(f"{sys.argv[1].split('/')[-2]} {r['cell']:14s} run {r['run']} n{v['programs']} span {v['span_us']:6.2f} exit first/med {v['exit_first_us']:.2f}/{v['exit_median_us']:.2f} epilogue {v['epilogue_median_us']:.2f}/{v['epilogue_max_us']:.2f}")
PY
done
OUT=$R/matrix TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-m PARTITIONS=1024 BLOCK_NS=64 \
  timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
