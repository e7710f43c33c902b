#!/usr/bin/env bash
# Session 13, call 2: the batch-16 low-bandwidth cells. (A) 4K: one or two partitions per
# (sequence, kv head) with deeper prefetch, 128-token tiles and 8 warps; (B) 1K likewise;
# (C) the cluster scheduling policy preference (.device/ab: TILEJIT_CLUSTER_POLICY, 1 spread,
# 2 load balancing) on the cluster variants at 4K; (D) the shuffled layout with one table
# lookup per thread and V tile (.device/ab2, branch shuffled-v-one-lookup): its GPU tests, the
# bench against main's library, Nsight Compute of one cell in both layouts. Each part is
# packed as it ends (a call cut short keeps the parts before).
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
run() { local name=$1; shift; mkdir -p $R/$name
  env OUT=$R/$name TILEJIT_CACHE_DIR=/tmp/c2 "$@" python3 bench/bench_decode.py > $R/$name/log.txt 2>&1
  echo "== $name"; grep -E "^(heads|32/32|32/8|64/8) " $R/$name/log.txt | tail -7
  tar -C $R -czf $OUT/$name.tgz $name && rm -rf $R/$name; }
M=TILEJIT_LIB=.device/bin/libtilejit_c.so
C4="CELLS=32/8:16:4096,64/8:16:4096"; C1="CELLS=32/8:16:1024,64/8:16:1024"
run a1 $M $C4 PARTITIONS=2048,4096 BLOCK_NS=64 DEPTHS=2,3 WARPS=4,8 MERGE_IN_KERNEL=0,c
run a2 $M $C4 PARTITIONS=2048,4096 BLOCK_NS=128 DEPTHS=1,2 WARPS=4,8 MERGE_IN_KERNEL=0,c
run b $M $C1 PARTITIONS=512,1024 BLOCK_NS=64,128 DEPTHS=1,2 WARPS=4,8 MERGE_IN_KERNEL=0,c
A=TILEJIT_LIB=.device/ab/libtilejit_c.so
run c0 $A $C4 PARTITIONS=512,1024,2048 BLOCK_NS=64 MERGE_IN_KERNEL=c
run c1 $A $C4 PARTITIONS=512,1024,2048 BLOCK_NS=64 MERGE_IN_KERNEL=c TILEJIT_CLUSTER_POLICY=1
run c2 $A $C4 PARTITIONS=512,1024,2048 BLOCK_NS=64 MERGE_IN_KERNEL=c TILEJIT_CLUSTER_POLICY=2
B2=.device/ab2
TILEJIT_CACHE_DIR=/tmp/c2-ab2 LD_LIBRARY_PATH=$PWD/.device/bin $B2/tilejit_gpu_tests --gtest_brief=1 --gtest_filter='*shuffled*' > $OUT/gpu_tests_ab2.txt 2>&1
echo "== ab2 tests"; tail -2 $OUT/gpu_tests_ab2.txt; grep -B3 -A12 "FAILED\|Failure" $OUT/gpu_tests_ab2.txt | head -30
S="KV_LAYOUT=shuffled CELLS=32/8:64:4096,32/32:16:4096,64/8:16:4096,32/8:1:16384,64/8:256:4096,32/8:1:1024 PARTITIONS=1024 BLOCK_NS=32,64"
run d_ab2 TILEJIT_LIB=$B2/libtilejit_c.so $S
run d_main $M $S
mkdir -p $OUT/ncu && cd $OUT/ncu
for L in standard shuffled; do
  KV_LAYOUT=$L CELLS=32/8:64:4096:1024:64 TILEJIT_CACHE_DIR=/tmp/c2n TILEJIT_LIB=$OLDPWD/$B2/libtilejit_c.so PYTHONPATH=$OLDPWD/python:$OLDPWD/bench/peers \
    ncu --kernel-name regex:'^tj_paged_decode$' --section WarpStateStats --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
    -o $L python3 $OLDPWD/bench/ncu_decode_cells.py > $L.log 2>&1; tail -1 $L.log
  ncu -i $L.ncu-rep > $L.txt 2>&1; grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued|Achieved Occupancy|Registers Per" $L.txt | head -8
done
rm -f *.ncu-rep; cd $OLDPWD; tar -C $OUT -czf $OUT/ncu.tgz ncu && rm -rf $OUT/ncu
