#!/usr/bin/env bash
# Session 12, call 4: nvrtc --Ofast-compile=min (NVVM does less; locally 148 -> 122 registers
# for the head-128 decode kernel) against the current options: cold JIT alternating x4, eight
# cells through the op alternating x2, and the GPU tests under it.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
for i in 1 2 3 4; do
  rm -rf /tmp/c4j; TILEJIT_CACHE_DIR=/tmp/c4j CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold | sed 's/^/base /'
  rm -rf /tmp/c4j; TILEJIT_NVRTC_OPTIONS=--Ofast-compile=min TILEJIT_CACHE_DIR=/tmp/c4j CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold | sed 's/^/min /'
done > $R/cold.txt 2>&1; grep head128 $R/cold.txt
CELLS=64/8:256:16384,32/32:64:16384,32/8:64:4096,64/8:1:1024,32/8:16:4096,64/8:16:1024,32/32:1:4096,64/8:256:1024
for run in base1 min1 base2 min2; do
  opts=""; [ "${run#min}" != "$run" ] && opts=--Ofast-compile=min
  OUT=$R/$run TILEJIT_NVRTC_OPTIONS="$opts" TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-${run%?} CELLS=$CELLS \
    PARTITIONS=1024 BLOCK_NS=64 timeout 100 python3 bench/bench_decode.py > $R/$run.log 2>&1
done
python3 bench/decode_compare.py $R/{base1,min1,base2,min2}/decode_tilejit.jsonl > $R/compare.txt 2>&1; cat $R/compare.txt | head -30
TILEJIT_NVRTC_OPTIONS=--Ofast-compile=min TILEJIT_CACHE_DIR=/tmp/c4-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests_min.txt 2>&1; tail -2 $R/gpu_tests_min.txt
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
