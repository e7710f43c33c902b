#!/usr/bin/env bash
# Session 14, call 4: main 60e2481 (.device/bin) against 5524aaa (.device/ab: range-in-layout
# merged, the cluster merge still staged in the scratch): cold JIT interleaved (4 processes
# each), warm start, launch; the head-128 matrix through the op with both; the 16 x 4K
# cluster row at depth 1 and 2 with both. Staged: bash scripts/stage_for_device.sh
# tilejit_bench_jit; bash scripts/stage_ab.sh 5524aaa; 5524aaa's tilejit_bench_jit copied to
# .device/ab; both tilejit_gpu_tests removed (carry limit; 60e2481's ran in call 3).
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python:$PWD/bench/peers PEERS_DIR=$PWD/.peers LD_LIBRARY_PATH=$PWD/$B
export TILEJIT_CACHE_DIR=/tmp/c4-jit
for i in 1 2 3 4; do
  for X in bin ab; do rm -rf /tmp/c4-jit; CUDA_CACHE_DISABLE=1 .device/$X/tilejit_bench_jit cold | sed "s/^{/{\"build\":\"$X\",/"; done
done > $R/jit.jsonl 2>&1
for i in 1 2 3; do $B/tilejit_bench_jit warm; done >> $R/jit.jsonl 2>&1
for i in 1 2; do $B/tilejit_bench_jit launch; $B/tilejit_bench_jit validate; done >> $R/jit.jsonl 2>&1
grep -E "paged_decode_head128" $R/jit.jsonl | cut -c1-120
grep -E '"launch|"graph|warm.*hit":1|validate' $R/jit.jsonl | head -8 | cut -c1-160
for X in bin ab; do
  OUT=$R/matrix_$X TILEJIT_LIB=$PWD/.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-m$X PARTITIONS=1024 BLOCK_NS=64 \
    timeout 200 python3 bench/bench_decode.py > $R/matrix_$X.log 2>&1
  python3 bench/decode_goals.py $R/matrix_$X/decode_tilejit.jsonl > $R/matrix_$X/goals.txt; cat $R/matrix_$X/goals.txt
done
python3 bench/decode_compare.py $R/matrix_ab/decode_tilejit.jsonl $R/matrix_bin/decode_tilejit.jsonl > $R/compare.txt 2>&1; cat $R/compare.txt
for X in bin ab bin ab; do
  OUT=$R/b16_$X TILEJIT_LIB=$PWD/.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c4-m$X CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 DEPTHS=1,2 MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/b16_$X.log 2>&1
done
python3 bench/decode_compare.py $R/b16_ab/decode_tilejit.jsonl $R/b16_bin/decode_tilejit.jsonl 2>&1 | tee $R/b16_compare.txt
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
