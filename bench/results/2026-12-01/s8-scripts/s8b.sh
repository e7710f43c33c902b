#!/usr/bin/env bash
# Session 8, call 2: block-table lookahead (TJ_PAGED_TABLE_LOOKAHEAD) A/B, whole matrix, one call.
set -uo pipefail
OUT=${OUT:-/tmp/out}; B=.device/bin
export PYTHONUNBUFFERED=1 TILEJIT_LIB=$B/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers
export TILEJIT_CACHE_DIR=/tmp/tjc
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/env.txt 2>&1
echo "=== tests $(date +%T)"; $B/tilejit_gpu_tests --gtest_brief=1 > $W/gpu_tests.txt 2>&1; tail -3 $W/gpu_tests.txt
run() { local name=$1; shift; mkdir -p $W/$name; echo "=== $name $(date +%T)"; env OUT=$W/$name "$@" python3 bench/bench_decode.py > $W/$name/log.txt 2>&1; python3 bench/decode_goals.py $W/$name/decode_tilejit.jsonl > $W/$name/goals.txt 2>&1; tail -4 $W/$name/goals.txt; }
run la2 PARTITIONS=1024 BLOCK_NS=64
run la0 PARTITIONS=1024 BLOCK_NS=64 TILEJIT_NVRTC_OPTIONS=-DTJ_PAGED_TABLE_LOOKAHEAD=0
S="CELLS=64/8:64:16384,64/8:64:4096,32/8:64:4096,32/8:16:4096,64/8:16:1024,64/8:256:16384"
for la in 1 4 0 2; do run sub-la$la $S PARTITIONS=2048,4096 BLOCK_NS=32,64 TILEJIT_NVRTC_OPTIONS=-DTJ_PAGED_TABLE_LOOKAHEAD=$la; done
cd $OUT && tar czf s8b.tgz w && rm -rf w
