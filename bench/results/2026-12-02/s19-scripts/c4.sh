#!/usr/bin/env bash
# Session 19, call 4: main c380b2d (paged_store's staged slow path only where a vector path
# exists; shuffled V unrolled again) in .device/bin: GPU tests; reshape_and_cache in the
# shuffled layout with this library ("new"), 45b42d2's (every shuffled-V store through the
# rolled loop) and 6f91f8d's (none staged), twice each, interleaved; the standard layout new
# and 6f91f8d once.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c4-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
run() {  # LABEL LAYOUT [LIBDIR]
  local lib=(); [ -n "${3:-}" ] && lib=(TILEJIT_DEVICE_LIB_DIR=$PWD/$3/templates/device)
  env "${lib[@]}" OUT=$R/mem_$1_$2 TILEJIT_CACHE_DIR=/tmp/c4-$1 CACHE_LAYOUT=$2 ITEMS=cache \
    timeout 90 python3 bench/bench_memory_kernels.py > $R/mem_$1_$2_$i.txt 2>&1
  echo "== $1 $2 $i"; grep -E "^cache |Error|error" $R/mem_$1_$2_$i.txt | head -5
}
for i in 1 2; do run new shuffled; run l45 shuffled .device/l45; run l6f shuffled .device/l6f; done
i=1; run new standard; run l6f standard .device/l6f
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
