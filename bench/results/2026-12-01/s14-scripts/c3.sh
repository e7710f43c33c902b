#!/usr/bin/env bash
# Session 14, call 3: main 60e2481 (a cluster merge stages over the placed tiles) in
# .device/bin (bash scripts/stage_for_device.sh tilejit_bench_jit): GPU tests; Nsight
# Compute's occupancy of p1024 n32 in clusters of 4 at 32/8 x 16 x 4K; the cluster cells swept
# over partitions 512/1024/2048 x tiles 32/64 x merge kernel / cluster; the fixed cost of
# p1024 n32 in clusters of 4 (bench/decode_fixed_cost.py).
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python:$PWD/bench/peers PEERS_DIR=$PWD/.peers LD_LIBRARY_PATH=$PWD/$B
export TILEJIT_LIB=$PWD/$B/libtilejit_c.so
TILEJIT_CACHE_DIR=/tmp/c3-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
export TILEJIT_CACHE_DIR=/tmp/c3
MERGE=c CELLS=32/8:16:4096:1024:32 ncu --kernel-name regex:'^tj_' --section LaunchStats --section Occupancy --section SpeedOfLight \
  python3 bench/ncu_decode_cells.py > $R/ncu_c4.txt 2>&1
grep -E "Duration|DRAM Throughput|Max Active Clusters|Block Limit Shared|Theoretical Occ|Achieved Occ" $R/ncu_c4.txt
OUT=$R/sweep CELLS=32/8:16:4096,64/8:16:4096,32/8:16:1024,64/8:16:1024,32/8:1:1024,64/8:1:4096,32/32:16:1024 \
  PARTITIONS=512,1024,2048 BLOCK_NS=32,64 MERGE_IN_KERNEL=0,c timeout 300 python3 bench/bench_decode.py > $R/sweep.log 2>&1
python3 bench/decode_compare.py $R/sweep/decode_tilejit.jsonl > $R/sweep/compare.txt 2>&1
python3 - $R/sweep/decode_tilejit.jsonl <<'PY'
import json, sys
sys.path.insert(0, "bench")
from decode_goals import best_peer, cells_of, read_run
for key, r in cells_of(read_run(sys.argv[1])).items():
    peer = best_peer(r)
    ours = sorted((v, k[8:-3]) for k, v in r.items() if k.startswith("tilejit_") and k.endswith("_us"))
    print(key, f"peer {peer:.1f}", " ".join(f"{n} {v:.1f} ({peer / v:.2f}x)" for v, n in ours[:6]))
PY
OUT=$R/fixed CELLS=32/8:16:4096,64/8:16:4096 TUNING='{"partition_size": 1024, "block_n": 32, "cluster_size": 4}' \
  timeout 120 python3 bench/decode_fixed_cost.py > $R/fixed.log 2>&1; grep -E '"tokens": (1|4096),|intercept' $R/fixed.log | cut -c1-160
tar -C $OUT -czf $OUT/c3.tgz r && rm -rf $R
