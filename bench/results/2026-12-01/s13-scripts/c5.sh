#!/usr/bin/env bash
# Session 13, call 5: the JIT costs of the final tree (cold x3 in new processes, warm, launch,
# validate; as s12-scripts/c3.sh), and Nsight Compute's warp stall reasons of one cell
# (32/8 x 64 x 4K, p1024 n64) in the standard and the shuffled layout.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
export TILEJIT_CACHE_DIR=/tmp/c5-jit
{ for i in 1 2 3; do rm -rf /tmp/c5-jit; CUDA_CACHE_DISABLE=1 $B/tilejit_bench_jit cold; done
  for i in 1 2 3; do $B/tilejit_bench_jit warm; done
  for i in 1 2 3; do $B/tilejit_bench_jit launch; $B/tilejit_bench_jit validate; done; } > $R/jit.jsonl 2>&1
grep paged_decode_head128 $R/jit.jsonl; grep -E '"launch|"graph|warm.*hit":1' $R/jit.jsonl | head -8
mkdir -p $R/ncu && cd $R/ncu
for L in standard shuffled; do
  KV_LAYOUT=$L CELLS=32/8:64:4096:1024:64 TILEJIT_CACHE_DIR=/tmp/c5n TILEJIT_LIB=$OLDPWD/$B/libtilejit_c.so PYTHONPATH=$OLDPWD/python:$OLDPWD/bench/peers \
    ncu --kernel-name regex:'^tj_paged_decode$' --section WarpStateStats --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    -o $L python3 $OLDPWD/bench/ncu_decode_cells.py > $L.log 2>&1
  ncu -i $L.ncu-rep > $L.txt 2>&1
  ncu -i $L.ncu-rep --page raw --csv 2>/dev/null | python3 -c "
import csv,sys
rows=list(csv.reader(sys.stdin)); h,v=rows[0],rows[-1]
st=[(float(v[i]),h[i]) for i in range(len(h)) if 'smsp__average_warps_issue_stalled_' in h[i] and h[i].endswith('per_issue_active.ratio') and v[i].replace('.','',1).isdigit()]
print('$L', sorted(st,reverse=True)[:8])" 2>&1 | tee $L.stalls.txt
  grep -E "Duration|DRAM Throughput|L1/TEX Hit|L2 Hit|Mem Busy|Issue Slots Busy|Warp Cycles Per Issued" $L.txt | head -9
done
rm -f *.ncu-rep; cd $OLDPWD
tar -C $OUT -czf $OUT/c5.tgz r && rm -rf $R
