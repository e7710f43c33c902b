# A/B: lanes per row (TJ_PAGED_ROW_LANES) x min_blocks_per_sm, on a subset of decode cells.
export PYTHONUNBUFFERED=1 TILEJIT_LIB=.device/bin/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers BLOCK_NS=32
export CELLS="32/8:64:4096,32/8:256:16384,32/32:64:4096,32/32:256:4096,64/8:64:16384,32/8:16:1024,32/8:16:4096,64/8:1:4096,32/32:1:1024"
base=$OUT
for cfg in "4 4" "8 4" "4 5" "8 5"; do
  set -- $cfg
  export TILEJIT_NVRTC_OPTIONS="-DTJ_PAGED_ROW_LANES=$1" DECODE_PARAMS="{\"min_blocks_per_sm\": $2}" TILEJIT_CACHE_DIR=/tmp/tjc_$1_$2 OUT=$base/l$1_mb$2
  echo "=== lanes $1 min_blocks $2"
  python3 bench/bench_decode.py 2>&1 | tee $base/l$1_mb$2.txt | grep -v "^read\|^heads"
done
