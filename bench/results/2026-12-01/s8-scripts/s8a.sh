#!/usr/bin/env bash
# Session 8, call 1: where the kernel waits (ncu stall sampling, ours vs decode_attention_fwd),
# and wave-fitted partitions at the low-bandwidth cells.
set -uo pipefail
OUT=${OUT:-/tmp/out}; B=.device/bin
export PYTHONUNBUFFERED=1 TILEJIT_LIB=$B/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers
export TILEJIT_CACHE_DIR=/tmp/tjc
W=$OUT/w; mkdir -p $W
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $W/env.txt 2>&1
echo "=== ncu $(date +%T)"
PEER=1 CELLS="64/8:64:16384:4096:64,64/8:64:4096:4096:32,32/8:16:4096:1024:64" \
  timeout 240 ncu --clock-control none --kernel-name regex:"tj_paged_decode|_fwd_grouped_kernel_stage1" \
  --section SpeedOfLight --section WarpStateStats --section Occupancy --section SourceCounters \
  --section MemoryWorkloadAnalysis --print-details all -o $W/prof python3 bench/ncu_decode_cells.py > $W/ncu.txt 2>&1
tail -3 $W/ncu.txt
ncu -i $W/prof.ncu-rep --page source --csv --print-source sass > $W/sass.csv 2>&1; ls -la $W
echo "=== wave $(date +%T)"
run() { local name=$1; shift; mkdir -p $W/$name; env OUT=$W/$name "$@" python3 bench/bench_decode.py > $W/$name/log.txt 2>&1; tail -6 $W/$name/log.txt; }
run b16 CELLS=32/8:16:1024,64/8:16:1024 PARTITIONS=224,256,512 BLOCK_NS=32,64
run b16x4k CELLS=32/8:16:4096,64/8:16:4096 PARTITIONS=704,832,1024,2048 BLOCK_NS=32,64
run b64x1k CELLS=64/8:64:1024 PARTITIONS=480,1024 BLOCK_NS=32,64
run b64x4k CELLS=64/8:64:4096,32/8:64:4096 PARTITIONS=832,2048,4096 BLOCK_NS=32,64
cd $OUT && tar czf s8a.tgz w && rm -rf w
