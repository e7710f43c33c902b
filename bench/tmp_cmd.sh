set -u
export PYTHONUNBUFFERED=1 TILEJIT_LIB=.device/bin/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers TILEJIT_CACHE_DIR=/tmp/tjc
mkdir -p $OUT/a $OUT/b
OUT=$OUT/a CELLS=32/32:1:16384,32/8:1:16384,64/8:1:16384,32/8:16:1024,64/8:16:1024,32/32:16:1024 PARTITIONS=512,1024 BLOCK_NS=32,64 python3 bench/bench_decode.py 2>&1 | tail -7
OUT=$OUT/b CELLS=32/8:16:16384,64/8:16:16384,32/32:16:16384,32/32:16:4096 PARTITIONS=1024,2048,4096 BLOCK_NS=32 python3 bench/bench_decode.py 2>&1 | tail -5
