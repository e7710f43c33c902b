#!/usr/bin/env bash
# Session 14, call 5: main 312c4d3 (cluster grids spread over the SMs) in .device/bin
# (bash scripts/stage_for_device.sh tilejit_bench_jit): GPU tests; the head-128 matrix
# through the op; the cluster rows' cells with the spread on and off (TILEJIT_CLUSTER_SPREAD=0),
# interleaved twice; cold JIT x3, launch.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python:$PWD/bench/peers PEERS_DIR=$PWD/.peers LD_LIBRARY_PATH=$PWD/$B
export TILEJIT_LIB=$PWD/$B/libtilejit_c.so
TILEJIT_CACHE_DIR=/tmp/c5-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
export TILEJIT_CACHE_DIR=/tmp/c5
OUT=$R/matrix PARTITIONS=1024 BLOCK_NS=64 timeout 200 python3 bench/bench_decode.py > $R/matrix.log 2>&1
python3 bench/decode_goals.py $R/matrix/decode_tilejit.jsonl > $R/matrix/goals.txt; cat $R/matrix/goals.txt
C=32/32:1:1024,32/32:1:4096,32/8:1:1024,32/8:1:4096,64/8:1:1024,64/8:1:4096,32/8:16:4096,64/8:16:4096
for i in 1 2; do for S in 1 0; do
  OUT=$R/spread$S TILEJIT_CLUSTER_SPREAD=$S CELLS=$C PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c \
    timeout 150 python3 bench/bench_decode.py > $R/spread${S}_$i.log 2>&1
done; done
python3 - $R/spread1/decode_tilejit.jsonl $R/spread0/decode_tilejit.jsonl <<'PY' | tee $R/spread_compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p)] for p in sys.argv[1:]]
for rows in zip(*runs):
    on, off = rows
    if "hq" not in on: continue
    cell = f"{on['hq']}/{on['hkv']} x {on['batch']} x {on['ctx'] // 1024}K"
    peer = min(on[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in on)
    print(f"{cell:18s} op spread {on.get('tilejit_op_us', 0):7.1f} off {off.get('tilejit_op_us', 0):7.1f}  "
          f"p2048_n64_c {on.get('tilejit_p2048_n64_c_us', 0):7.1f} / {off.get('tilejit_p2048_n64_c_us', 0):7.1f}  peer {peer:.1f}")
PY
{ for i in 1 2 3; do rm -rf /tmp/c5-jit; TILEJIT_CACHE_DIR=/tmp/c5-jit CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done
  $B/tilejit_bench_jit launch; } > $R/jit.jsonl 2>&1
grep -E "paged_decode_head128|launch|graph" $R/jit.jsonl | cut -c1-120
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
