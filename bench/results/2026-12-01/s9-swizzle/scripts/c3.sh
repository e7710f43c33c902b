# Staged: .device/bin = main; .device/swzp = branch + predicated table lookup (a24c5f8);
# .device/mainp = main + the same lookup change (not kept). Abseil only in .device/bin.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
R=$OUT/c3; mkdir -p $R
echo "=== swzp tests $(date +%T)"
TILEJIT_CACHE_DIR=/tmp/c3-t timeout 150 .device/swzp/tilejit_gpu_tests --gtest_brief=1 > $R/swzp_gpu_tests.txt 2>&1; tail -3 $R/swzp_gpu_tests.txt
for lib in bin swzp mainp; do
  echo "=== $lib matrix $(date +%T)"; mkdir -p $R/$lib
  OUT=$R/$lib TILEJIT_LIB=.device/$lib/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c3-$lib PARTITIONS=1024 BLOCK_NS=32,64 \
    timeout 95 python3 bench/bench_decode.py > $R/$lib/log.txt 2>&1; tail -1 $R/$lib/log.txt
  python3 bench/decode_goals.py $R/$lib/decode_tilejit.jsonl > $R/$lib/goals.txt 2>&1; grep -A4 tilejit_op $R/$lib/goals.txt
done
echo "=== done $(date +%T)"
cd $OUT && tar czf c3.tgz c3 && rm -rf c3
