# Staged: .device/bin = main; .device/swzq = branch at a054382 (lookup and address branch-free).
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
R=$OUT/c4; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/env.txt 2>&1
echo "=== main $(date +%T)"; mkdir -p $R/main
OUT=$R/main TILEJIT_LIB=.device/bin/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-main PARTITIONS=128,1024 BLOCK_NS=64 \
  timeout 80 python3 bench/bench_decode.py > $R/main/log.txt 2>&1; tail -1 $R/main/log.txt
echo "=== swzq sweep $(date +%T)"; mkdir -p $R/swzq
OUT=$R/swzq TILEJIT_LIB=.device/swzq/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-swzq PARTITIONS=128,256,512,1024,2048,4096 BLOCK_NS=32,64 \
  timeout 320 python3 bench/bench_decode.py > $R/swzq/log.txt 2>&1; tail -1 $R/swzq/log.txt
for d in main swzq; do python3 bench/decode_goals.py $R/$d/decode_tilejit.jsonl > $R/$d/goals.txt 2>&1; grep -A4 tilejit_op $R/$d/goals.txt; done
echo "=== done $(date +%T)"
cd $OUT && tar czf c4.tgz c4 && rm -rf c4
