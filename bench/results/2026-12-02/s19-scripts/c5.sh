#!/usr/bin/env bash
# Session 19, call 5: main 273710f's reshape_and_cache (head 128, block 16, bf16) writing whole
# runs of consecutive slots (CACHE_SLOTS=consecutive, a prefill's writes) in both layouts,
# twice, beside random slots once: how much of the shuffled layout's cost is the random slots.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
for i in 1 2; do for lay in standard shuffled; do for sl in consecutive random; do
  [ $sl = random ] && [ $i = 2 ] && continue
  OUT=$R/mem_${lay}_$sl TILEJIT_CACHE_DIR=/tmp/c5-m CACHE_LAYOUT=$lay CACHE_SLOTS=$sl ITEMS=cache \
    timeout 60 python3 bench/bench_memory_kernels.py > $R/mem_${lay}_${sl}_$i.txt 2>&1
  echo "== $lay $sl $i"; grep -E "^cache |Error|error" $R/mem_${lay}_${sl}_$i.txt | head -5
done; done; done
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
