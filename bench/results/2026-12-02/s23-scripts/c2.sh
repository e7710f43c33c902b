#!/usr/bin/env bash
# Session 23, call 2: the launch path's context check. Device::launch made its context current
# with cuCtxSetCurrent on every call; now it asks cuCtxGetCurrent first and sets only where
# another context is current. `launch` and `validate` of main (.device/old, 1dcc48f) against
# the new build (.device/bin), four interleaved rounds; `launch` now also prints what
# cuCtxGetCurrent and cuCtxSetCurrent cost alone. Then the GPU tests on the new build.
# Stage: bash scripts/stage_for_device.sh tilejit_bench_jit; rm -f .device/bin/tilejit
#   .device/bin/tilejit_runtime_tests; main's tilejit_bench_jit (stripped) in .device/old/.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export LD_LIBRARY_PATH=$PWD/$B
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c2-w $B/tilejit_bench_jit warm > /dev/null 2>&1
for i in 1 2 3 4; do
  for b in old bin; do
    echo "{\"build\":\"$b\",\"round\":$i}"
    TILEJIT_CACHE_DIR=/tmp/c2-w .device/$b/tilejit_bench_jit launch
    TILEJIT_CACHE_DIR=/tmp/c2-w .device/$b/tilejit_bench_jit validate
  done
done > $R/launch.jsonl 2>&1
cat $R/launch.jsonl
TILEJIT_CACHE_DIR=/tmp/c2-tests timeout 200 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1
tail -2 $R/gpu_tests.txt; grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
