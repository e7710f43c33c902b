# Staged: .device/bin = main (3ef3952) libtilejit_c.so; .device/swz = the branch as of e860dcf
# (libtilejit_c.so, tilejit_gpu_tests, with Debian's Abseil beside them).
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers
R=$OUT/c1; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv > $R/env.txt 2>&1
echo "=== swz tests $(date +%T)"
TILEJIT_CACHE_DIR=/tmp/c-swz-t timeout 150 .device/swz/tilejit_gpu_tests --gtest_brief=1 > $R/swz_gpu_tests.txt 2>&1; tail -4 $R/swz_gpu_tests.txt
for lib in main swz main2; do
  d=bin; [ $lib = swz ] && d=swz
  echo "=== $lib matrix $(date +%T)"; mkdir -p $R/$lib
  OUT=$R/$lib TILEJIT_LIB=.device/$d/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c-$lib PARTITIONS=1024,2048 BLOCK_NS=32,64 \
    timeout 135 python3 bench/bench_decode.py > $R/$lib/log.txt 2>&1; tail -3 $R/$lib/log.txt
  python3 bench/decode_goals.py $R/$lib/decode_tilejit.jsonl > $R/$lib/goals.txt 2>&1; tail -12 $R/$lib/goals.txt
done
echo "=== done $(date +%T)"
cd $OUT && tar czf c1.tgz c1 && rm -rf c1
