#!/usr/bin/env bash
# Session 12, calls 6 and 7: the GPU tests of the final tree (call 6: the cluster-size launch
# check added; call 7: the table's cluster follows the caller's tuning, cluster tests skip
# where the device has no clusters).
set -u
B=.device/bin; export LD_LIBRARY_PATH=$PWD/$B
TILEJIT_CACHE_DIR=/tmp/c6-tests $B/tilejit_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.txt 2>&1; tail -3 $OUT/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $OUT/gpu_tests.txt | head -40
