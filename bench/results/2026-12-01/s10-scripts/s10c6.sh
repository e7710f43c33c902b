# s10 call 6: prefetch depth at the low-bandwidth cells now that one partition needs no merge
# (staged: scripts/stage_for_device.sh at af95c20)
export PYTHONPATH=python:bench/peers PEERS_DIR=.peers TILEJIT_LIB=.device/bin/libtilejit_c.so LD_LIBRARY_PATH=$PWD/.device/bin
mkdir -p $OUT/depth
OUT=$OUT/depth TILEJIT_CACHE_DIR=/tmp/c6 CELLS=32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096 PARTITIONS=512,1024,2048 BLOCK_NS=32,64 DEPTHS=1,2,3 \
  python3 bench/bench_decode.py > $OUT/depth/log.txt 2>&1
grep -E "^(32|64)/8 +16 +[0-9]+ p" $OUT/depth/log.txt | cut -c1-400; grep -A6 "^read ceiling" $OUT/depth/log.txt
cd $OUT && tar czf c6.tgz depth && rm -rf depth
