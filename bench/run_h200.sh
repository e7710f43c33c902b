#!/usr/bin/env bash
# One device call: GPU tests, the main job on the GPU, then the benchmarks. Expects
# scripts/stage_for_device.sh to have filled .device/bin and the peer kernels in .peers/.
# Usage (device tool): bash bench/run_h200.sh [tests] [run] [memory] [small] [decode] [decode-check] [heads] [gqa-gap] [small-warps] [merge-in-kernel] [jit] [ab]
set -uo pipefail
OUT=${OUT:-/tmp/out}
B=.device/bin
export PYTHONUNBUFFERED=1 TILEJIT_LIB=$B/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers
export TILEJIT_CACHE_DIR=${TILEJIT_CACHE_DIR:-/tmp/tilejit-cache}
steps=${*:-jit tests run memory decode}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > "$OUT/env.txt" 2>&1
for step in $steps; do
  echo "=== $step $(date +%T)"
  case $step in
    tests) $B/tilejit_gpu_tests --gtest_brief=1 2>&1 | tee "$OUT/gpu_tests.txt" | tail -40 ;;
    run) $B/tilejit run --iterations 50 2>&1 | tee "$OUT/run.txt" ;;
    memory) python3 bench/bench_memory_kernels.py 2>&1 | tee "$OUT/memory.txt" | tail -12 ;;
    small) python3 bench/profile_small_batch.py 2>&1 | tee "$OUT/small.txt" | tail -60 ;;
    decode) python3 bench/bench_decode.py 2>&1 | tee "$OUT/decode.txt" | tail -45 ;;
    # the large-GQA gap (session 5 notes): launch order and whole waves, on one machine
    gqa-gap)
      for order in seqs_first heads_first; do
        mkdir -p "$OUT/gqa-gap-$order"
        OUT="$OUT/gqa-gap-$order" DECODE_PARAMS="{\"grid_order\": \"$order\"}" \
          CELLS=64/8:64:16384,32/8:64:16384,64/8:256:16384,32/8:256:16384,64/8:256:4096 \
          PARTITIONS=3328,4096 BLOCK_NS=32 python3 bench/bench_decode.py 2>&1 | tail -7
      done ;;
    # the cells where the best peer is under 75 % of read bandwidth: warps per program
    small-warps) mkdir -p "$OUT/small-warps"; OUT="$OUT/small-warps" CELLS=32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096,64/8:64:1024,32/8:1:1024 \
        PARTITIONS=128,256,512,1024 BLOCK_NS=16,32 WARPS=1,2,4 \
        python3 bench/bench_decode.py 2>&1 | tee "$OUT/small-warps/small_warps.txt" | tail -8 ;;
    # the split-K kernel merging itself (merge_in_kernel) against the merge kernel, small grids
    merge-in-kernel) mkdir -p "$OUT/merge-in-kernel"; OUT="$OUT/merge-in-kernel" \
        CELLS=32/8:1:1024,64/8:1:1024,32/32:1:1024,32/8:1:4096,32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096,64/8:64:1024 \
        PARTITIONS=64,128,256,512,1024 BLOCK_NS=32,64 MERGE_IN_KERNEL=0,1 \
        python3 bench/bench_decode.py 2>&1 | tee "$OUT/merge-in-kernel/merge_in_kernel.txt" | tail -12 ;;
    # heads 192 and 256 (their own table rows): eight 32/8 cells, partitions at 32-token tiles
    # (64-token tiles leave one program per SM at head 256); the ranking per table class too
    heads) for h in 192 256; do mkdir -p "$OUT/head$h"; OUT="$OUT/head$h" HEAD_SIZE=$h \
        CELLS=32/8:1:1024,32/8:1:16384,32/8:16:1024,32/8:16:4096,32/8:16:16384,32/8:64:1024,32/8:64:16384,32/8:256:4096 \
        PARTITIONS=${PARTITIONS:-128,256,512,1024,2048,4096} BLOCK_NS=32 python3 bench/bench_decode.py 2>&1 | tee "$OUT/head$h/log.txt" | tail -10
        python3 bench/decode_goals.py "$OUT/head$h/decode_tilejit.jsonl" > "$OUT/head$h/goals.txt"
        python3 bench/decode_table.py "$OUT/head$h/decode_tilejit.jsonl" > "$OUT/head$h/table.txt"; done ;;
    # a few cells, one tiling each: a check of a change, not the table
    decode-check) mkdir -p "$OUT/check"; OUT="$OUT/check" CELLS=64/8:64:16384,32/32:64:16384,32/8:16:1024 PARTITIONS=512,4096 BLOCK_NS=32 \
        python3 bench/bench_decode.py 2>&1 | tee "$OUT/check/decode_check.txt" | tail -5 ;;
    # A/B of two builds in one call: .device/ab (scripts/stage_ab.sh REV) against .device/bin;
    # the GPU tests of the second build, then the matrix (the op and PARTITIONS x BLOCK_NS)
    # with bin, ab, bin again (the drift within the call).
    ab) mkdir -p "$OUT/ab"; cp .device/ab/REV "$OUT/ab/" 2>/dev/null
      LD_LIBRARY_PATH=$PWD/$B TILEJIT_CACHE_DIR=/tmp/tilejit-ab-tests .device/ab/tilejit_gpu_tests --gtest_brief=1 > "$OUT/ab/gpu_tests.txt" 2>&1
      tail -3 "$OUT/ab/gpu_tests.txt"
      for build in bin ab bin2; do dir=.device/${build%2}; mkdir -p "$OUT/ab/$build"
        OUT="$OUT/ab/$build" LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$dir/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/tilejit-ab-$build \
          PARTITIONS=${PARTITIONS:-1024} BLOCK_NS=${BLOCK_NS:-32,64} python3 bench/bench_decode.py > "$OUT/ab/$build/log.txt" 2>&1
        python3 bench/decode_goals.py "$OUT/ab/$build/decode_tilejit.jsonl" > "$OUT/ab/$build/goals.txt"
        grep -A4 tilejit_op "$OUT/ab/$build/goals.txt"; done
      python3 bench/decode_compare.py "$OUT"/ab/{bin,ab,bin2}/decode_tilejit.jsonl > "$OUT/ab/compare.txt" ;;
    jit)
      rm -rf /tmp/tilejit-jit && export TILEJIT_CACHE_DIR=/tmp/tilejit-jit
      # nvrtc 12.9+ keeps its own compile cache in the driver's: off for the cold figures.
      { CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; for i in 1 2 3 4 5; do $B/tilejit_bench_jit warm; done;
        $B/tilejit_bench_jit launch; } 2>&1 | tee "$OUT/jit.jsonl" ;;
  esac
done
