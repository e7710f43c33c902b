# A/B of TJ_PAGED_ROW_LANES (lanes sharing a K/V row in paged_load_shared) on large decode cells.
export PYTHONUNBUFFERED=1 TILEJIT_LIB=.device/bin/libtilejit_c.so PYTHONPATH=python:bench/peers PEERS_DIR=.peers BLOCK_NS=32 PARTITIONS=1024
export CELLS="32/8:64:4096,32/8:256:16384,32/32:64:4096,64/8:64:16384"
base=$OUT
for lanes in 8 16; do
  export TILEJIT_NVRTC_OPTIONS="-DTJ_PAGED_ROW_LANES=$lanes" TILEJIT_CACHE_DIR=/tmp/tjc_lanes$lanes OUT=$base/lanes$lanes
  echo "=== lanes $lanes"
  python3 bench/bench_decode.py 2>&1 | tee $base/lanes$lanes.txt | grep -v "^read\|^heads"
done
