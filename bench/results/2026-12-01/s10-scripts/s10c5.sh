# s10 call 5: the one-partition change (bin) against da3a653 (ab): GPU tests, matrix, JIT, heads
# (staged: scripts/stage_for_device.sh tilejit_bench_jit at 7e7097b, then scripts/stage_ab.sh da3a653, ab/tilejit_gpu_tests removed)
export PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
B=.device/bin
TILEJIT_CACHE_DIR=/tmp/c5-tests $B/tilejit_gpu_tests --gtest_brief=1 > $OUT/gpu_tests.txt 2>&1; tail -3 $OUT/gpu_tests.txt
for build in bin ab; do mkdir -p $OUT/matrix/$build
  OUT=$OUT/matrix/$build TILEJIT_LIB=.device/$build/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c5-$build PARTITIONS=1024 BLOCK_NS=64 \
    python3 bench/bench_decode.py > $OUT/matrix/$build/log.txt 2>&1
  python3 bench/decode_goals.py $OUT/matrix/$build/decode_tilejit.jsonl > $OUT/matrix/$build/goals.txt; grep -A4 tilejit_op $OUT/matrix/$build/goals.txt; done
python3 bench/decode_compare.py $OUT/matrix/bin/decode_tilejit.jsonl $OUT/matrix/ab/decode_tilejit.jsonl > $OUT/matrix/compare.txt
rm -rf /tmp/tilejit-jit; export TILEJIT_CACHE_DIR=/tmp/tilejit-jit
{ CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; for i in 1 2 3 4 5; do $B/tilejit_bench_jit warm; done; $B/tilejit_bench_jit launch; } > $OUT/jit.jsonl 2>&1; grep -E "cold|launch|graph" $OUT/jit.jsonl | cut -c1-200 | head -8
H=32/8:1:1024,32/8:1:16384,32/8:16:1024,32/8:16:4096,32/8:16:16384,32/8:64:1024,32/8:64:16384,32/8:256:4096
for h in 256 192; do mkdir -p $OUT/head$h; OUT=$OUT/head$h TILEJIT_LIB=$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c5-h HEAD_SIZE=$h CELLS=$H PARTITIONS=1024 BLOCK_NS=32 python3 bench/bench_decode.py > $OUT/head$h/log.txt 2>&1
  python3 bench/decode_goals.py $OUT/head$h/decode_tilejit.jsonl > $OUT/head$h/goals.txt; grep -A3 tilejit_op $OUT/head$h/goals.txt; done
cd $OUT && tar czf c5.tgz gpu_tests.txt matrix jit.jsonl head256 head192 && rm -rf matrix head256 head192
