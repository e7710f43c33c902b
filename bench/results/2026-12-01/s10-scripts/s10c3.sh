# s10 call 3: wave-fitted partitions at the low-bandwidth cells; the op with the new head rows
# (staged with scripts/stage_for_device.sh at da3a653; run as OUT=$OUT bash .device/s10c3.sh)
set -x
export PYTHONPATH=python:bench/peers PEERS_DIR=.peers TILEJIT_LIB=.device/bin/libtilejit_c.so LD_LIBRARY_PATH=$PWD/.device/bin
LOW=32/8:16:1024,64/8:16:1024,32/8:16:4096,64/8:16:4096,64/8:64:1024
mkdir -p $OUT/waves64 $OUT/waves32 $OUT/head256 $OUT/head192
OUT=$OUT/waves64 TILEJIT_CACHE_DIR=/tmp/c3 CELLS=$LOW PARTITIONS=384,512,1408,2048 BLOCK_NS=64 python3 bench/bench_decode.py > $OUT/waves64/log.txt 2>&1; tail -8 $OUT/waves64/log.txt
OUT=$OUT/waves32 TILEJIT_CACHE_DIR=/tmp/c3 CELLS=$LOW PARTITIONS=224,352,832,1376 BLOCK_NS=32 python3 bench/bench_decode.py > $OUT/waves32/log.txt 2>&1; tail -8 $OUT/waves32/log.txt
H=32/8:1:1024,32/8:1:16384,32/8:16:1024,32/8:16:4096,32/8:16:16384,32/8:64:1024,32/8:64:16384,32/8:256:4096
for h in 256 192; do OUT=$OUT/head$h TILEJIT_CACHE_DIR=/tmp/c3 HEAD_SIZE=$h CELLS=$H PARTITIONS=2048 BLOCK_NS=32 python3 bench/bench_decode.py > $OUT/head$h/log.txt 2>&1; tail -10 $OUT/head$h/log.txt
  python3 bench/decode_goals.py $OUT/head$h/decode_tilejit.jsonl > $OUT/head$h/goals.txt; head -3 $OUT/head$h/goals.txt; done
cd $OUT && tar czf c3.tgz waves64 waves32 head256 head192 && rm -rf waves64 waves32 head256 head192
