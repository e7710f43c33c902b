# Staged by scripts/stage_for_device.sh tilejit_bench_jit from the merged tree (the swizzle, the
# branch-free lookups, the re-swept table): the final check of session 9.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers TILEJIT_LIB=.device/bin/libtilejit_c.so
R=$OUT/c5; mkdir -p $R; B=.device/bin
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/env.txt 2>&1
echo "=== tests $(date +%T)"
TILEJIT_CACHE_DIR=/tmp/c5-t timeout 150 $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -3 $R/gpu_tests.txt
echo "=== jit $(date +%T)"
export TILEJIT_CACHE_DIR=/tmp/c5-jit
{ CUDA_CACHE_DISABLE=1 timeout 20 $B/tilejit_bench_jit cold; for i in 1 2 3; do timeout 10 $B/tilejit_bench_jit warm; done; timeout 15 $B/tilejit_bench_jit launch; } > $R/jit.jsonl 2>&1; cut -c1-200 $R/jit.jsonl
echo "=== decode $(date +%T)"; mkdir -p $R/decode
OUT=$R/decode TILEJIT_CACHE_DIR=/tmp/c5-d PARTITIONS=4096 BLOCK_NS=32 timeout 90 python3 bench/bench_decode.py > $R/decode/log.txt 2>&1
python3 bench/decode_goals.py $R/decode/decode_tilejit.jsonl > $R/decode/goals.txt 2>&1; grep -A4 tilejit_op $R/decode/goals.txt
for h in 256 192; do echo "=== head $h $(date +%T)"; mkdir -p $R/head$h
  OUT=$R/head$h HEAD_SIZE=$h TILEJIT_CACHE_DIR=/tmp/c5-h CELLS=32/8:1:1024,32/8:1:16384,32/8:16:1024,32/8:16:4096,32/8:16:16384,32/8:64:1024,32/8:64:16384,32/8:256:4096 \
    PARTITIONS=1024 BLOCK_NS=32 timeout 55 python3 bench/bench_decode.py > $R/head$h/log.txt 2>&1
  python3 bench/decode_goals.py $R/head$h/decode_tilejit.jsonl > $R/head$h/goals.txt 2>&1; grep -A2 tilejit_op $R/head$h/goals.txt; done
echo "=== done $(date +%T)"
cd $OUT && tar czf c5.tgz c5 && rm -rf c5
