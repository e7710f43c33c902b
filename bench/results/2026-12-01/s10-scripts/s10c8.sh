# s10 call 8: branch unverified-lean-paged-copies (bin) against main 740fd21 (ab): a few cells, then GPU tests
# (staged: scripts/stage_for_device.sh on the branch, then scripts/stage_ab.sh main, ab/tilejit_gpu_tests removed)
export PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
C=32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:256:16384
for build in bin ab; do mkdir -p $OUT/lean/$build
  OUT=$OUT/lean/$build TILEJIT_LIB=.device/$build/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c8-$build CELLS=$C PARTITIONS=1024 BLOCK_NS=64 \
    python3 bench/bench_decode.py > $OUT/lean/$build/log.txt 2>&1; grep -A5 "^read ceiling" $OUT/lean/$build/log.txt | tail -4; done
TILEJIT_CACHE_DIR=/tmp/c8-tests .device/bin/tilejit_gpu_tests --gtest_brief=1 > $OUT/lean/gpu_tests.txt 2>&1; tail -3 $OUT/lean/gpu_tests.txt
