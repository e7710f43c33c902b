#!/usr/bin/env bash
# Setup: cp -r templates/device .device/libpace and apply s22-scripts/pace.patch to the copy.
# Session 22, call 2: pacing (measurement hack, a copy of the device library in
# .device/libpace, TJ_PACE): a grid-wide counter of tiles done; a program more than M tiles
# ahead of the grid's mean sleeps S ns before its next tile's copies, so that the bandwidth
# goes to those behind. Results are unchanged (relerr in the logs). 16 x 4K through the op,
# main's library against three (M, S), four interleaved rounds; the loop ends' spread.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$PWD/$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
pick() {  # margin x100, sleep ns (0: main)
  if [ $1 = 0 ]; then unset TILEJIT_DEVICE_LIB_DIR TILEJIT_NVRTC_OPTIONS
  else export TILEJIT_DEVICE_LIB_DIR=$PWD/.device/libpace TILEJIT_NVRTC_OPTIONS="-DTJ_PACE=1 -DTJ_PACE_P=2048 -DTJ_PACE_MARGIN_X100=$1 -DTJ_PACE_NS=$2"; fi
}
V="p0:0:0 pA:50:200 pB:100:500 pC:25:100"
for i in 1 2 3 4; do for v in $V; do IFS=: read n m s <<< "$v"; pick $m $s
  OUT=$R/ab_$n TILEJIT_CACHE_DIR=/tmp/c2-$n CELLS=32/8:16:4096,64/8:16:4096 PARTITIONS=2048 BLOCK_NS=64 \
    MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/ab_${n}_$i.log 2>&1
done; done
for n in pA pB pC; do (cd bench && python3 decode_ab.py $R/ab_$n/decode_tilejit.jsonl $R/ab_p0/decode_tilejit.jsonl) > $R/ab_${n}_vs_p0.txt 2>&1; echo "== $n"; tail -2 $R/ab_${n}_vs_p0.txt; done
grep -h "relerr\|x 16 x" $R/ab_pB_1.log | head -4
for v in p0:0:0 pA:50:200 pB:100:500; do IFS=: read n m s <<< "$v"; pick $m $s
  OUT=$R/tl_$n TILEJIT_CACHE_DIR=/tmp/c2-tl-$n CELLS=32/8:16:4096 LENS=4096 RUNS=3 timeout 120 python3 bench/decode_timeline.py > $R/tl_$n.log 2>&1
  python3 bench/timeline_tail.py $R/tl_$n/timeline_raw.txt > $R/tail_$n.txt 2>&1; echo "== $n"; grep "loop ends\|last loop" $R/tail_$n.txt
  gzip -f $R/tl_$n/timeline_raw.txt
done
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
