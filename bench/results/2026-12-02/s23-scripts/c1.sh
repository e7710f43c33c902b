#!/usr/bin/env bash
# Session 23, call 1: main (b0d7cc7's kernels, unchanged since) on this session's host: all GPU
# tests; the 16 x 4K cells through the op and the peers, four rounds (the host's read ceiling
# in every round); cold JIT of the head-128 decode (three processes, fresh caches), warm start
# (twice: the first process compiles), launch cost and graph replay.
# Stage: bash scripts/stage_for_device.sh tilejit_bench_jit; rm -f .device/bin/tilejit .device/bin/tilejit_runtime_tests
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$PWD/$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
lscpu | grep -E "Model name|MHz" >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c1-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3; do
  rm -rf /tmp/c1-jit; TILEJIT_CACHE_DIR=/tmp/c1-jit CUDA_CACHE_DISABLE=1 timeout 30 $B/tilejit_bench_jit cold paged_decode_head128
done > $R/jit.jsonl 2>&1
for i in 1 2; do TILEJIT_CACHE_DIR=/tmp/c1-w $B/tilejit_bench_jit warm; done >> $R/jit.jsonl 2>&1
$B/tilejit_bench_jit launch >> $R/jit.jsonl 2>&1
grep -h '"mode"' $R/jit.jsonl | cut -c1-200
for i in 1 2 3 4; do
  OUT=$R/b16_$i TILEJIT_CACHE_DIR=/tmp/c1-b CELLS=32/8:16:4096,64/8:16:4096 PARTITIONS=2048 BLOCK_NS=64 \
    MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/b16_$i.log 2>&1
  (cd bench && python3 decode_goals.py $R/b16_$i/decode_tilejit.jsonl) > $R/b16_$i/goals.txt 2>&1
done
# (The summary below is bench/decode_cells.py with each run's read ceiling; decode_cells.py
# prints the ceiling itself since this call, so a later script calls it per run instead.)
python3 - $R/b16_*/decode_tilejit.jsonl > $R/b16_summary.txt <<'PY'
import json, sys
sys.path.insert(0, "bench"); from decode_goals import best_peer, cell_name, read_run, measured
for path in sys.argv[1:]:
    rows = read_run(path)
    ceiling = [r["TBps"] for r in rows if r.get("item") == "read_ceiling"][-1]
    for r in measured(rows):
        peer = best_peer(r)
        print(f"{path.split('/')[-2]} ceiling {ceiling:.3f} TB/s  {cell_name(r)}: op {r['tilejit_op_us']:.2f} us, best peer {peer:.2f}, {peer / r['tilejit_op_us']:.3f}x")
PY
cat $R/b16_summary.txt
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
