#!/usr/bin/env bash
# Session 8, call 5: GPU tests, the whole matrix with the new table row, L2 modes of the K/V copies.
set -uo pipefail
OUT=${OUT:-/tmp/out}; B=.device/bin
export PYTHONUNBUFFERED=1 TILEJIT_LIB=$B/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers
export TILEJIT_CACHE_DIR=/tmp/tjc
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/env.txt 2>&1
run() { local name=$1; shift; mkdir -p $W/$name; echo "=== $name $(date +%T)"; env OUT=$W/$name "$@" python3 bench/bench_decode.py > $W/$name/log.txt 2>&1; python3 bench/decode_goals.py $W/$name/decode_tilejit.jsonl > $W/$name/goals.txt 2>&1; tail -4 $W/$name/goals.txt | cut -c1-400; }
S="CELLS=64/8:64:16384,64/8:64:4096,32/8:64:4096,32/32:64:16384,64/8:256:16384,32/8:16:4096,64/8:16:1024,32/8:1:1024"
for m in 0 3 1 2 0 3; do run l2-mode$m-$SECONDS $S PARTITIONS=4096 BLOCK_NS=64 TILEJIT_NVRTC_OPTIONS=-DTJ_PAGED_L2_MODE=$m; done
run matrix PARTITIONS=1024 BLOCK_NS=64
echo "=== tests $(date +%T)"; $B/tilejit_gpu_tests --gtest_brief=1 > $W/gpu_tests.txt 2>&1; tail -3 $W/gpu_tests.txt
echo "=== jit $(date +%T)"; rm -rf /tmp/tilejit-jit; export TILEJIT_CACHE_DIR=/tmp/tilejit-jit
{ CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; for i in 1 2 3; do $B/tilejit_bench_jit warm; done; $B/tilejit_bench_jit launch; } > $W/jit.jsonl 2>&1; cut -c1-300 $W/jit.jsonl | head -12
cd $OUT && tar czf s8e.tgz w && rm -rf w
