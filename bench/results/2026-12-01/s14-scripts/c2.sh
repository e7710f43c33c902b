#!/usr/bin/env bash
# Session 14, call 2: why 16 x 4K streams slower than 64 x 1K (same bytes): Nsight Compute's
# launch, occupancy and speed-of-light sections of the table row (p2048 n64, cluster of 2),
# four 1024-token partitions of 32-token tiles (merge kernel; cluster of 4) and the 64 x 1K
# row (p1024 n32, one partition); then the 16 x 4K cells over partitions 1024/2048 x tiles
# 32/64 x merge kernel / last program / cluster. Main 5524aaa in .device/bin.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R/ncu
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python:$PWD/bench/peers PEERS_DIR=$PWD/.peers LD_LIBRARY_PATH=$PWD/$B
export TILEJIT_LIB=$PWD/$B/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c2
for v in "c 32/8:16:4096:2048:64" "0 32/8:16:4096:1024:32" "c 32/8:16:4096:1024:32" "1 32/8:16:4096:1024:32" "0 32/8:64:1024:1024:32"; do
  set -- $v; name=$(echo "$1_$2" | tr '/:' '--')
  MERGE=$1 CELLS=$2 ncu --kernel-name regex:'^tj_' --section LaunchStats --section Occupancy --section SpeedOfLight \
    python3 bench/ncu_decode_cells.py > $R/ncu/$name.txt 2>&1
  echo "== $name"; grep -E "^  tj_|Duration|DRAM Throughput|Cluster|Achieved Occupancy|Theoretical Occupancy|Block Limit|Waves Per SM|Registers Per|Shared Memory Config|Dynamic Shared" $R/ncu/$name.txt | head -40
done
OUT=$R/sweep CELLS=32/8:16:4096,64/8:16:4096 PARTITIONS=1024,2048 BLOCK_NS=32,64 MERGE_IN_KERNEL=0,1,c \
  timeout 200 python3 bench/bench_decode.py > $R/sweep.log 2>&1
python3 bench/decode_compare.py $R/sweep/decode_tilejit.jsonl 2>&1 | tee $R/sweep/compare.txt
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
