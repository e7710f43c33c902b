#!/usr/bin/env bash
# Session 22, call 4: the kv heads of one (sequence, partition) gain from reading the same
# token rows at the same time (call 1). Does launching them next to each other (grid_order
# heads_first) tighten that? 16 x 4K through the op, seqs_first (the table's) against
# heads_first, four interleaved rounds.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$PWD/$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
for i in 1 2 3 4; do for o in seqs_first heads_first; do
  DECODE_PARAMS="{\"grid_order\": \"$o\"}" OUT=$R/ab_$o TILEJIT_CACHE_DIR=/tmp/c4-$o CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 100 python3 bench/bench_decode.py > $R/ab_${o}_$i.log 2>&1
done; done
(cd bench && python3 decode_ab.py $R/ab_heads_first/decode_tilejit.jsonl $R/ab_seqs_first/decode_tilejit.jsonl) > $R/ab_compare.txt 2>&1; tail -3 $R/ab_compare.txt
grep -h "relerr\|x 16 x\| 16 " $R/ab_heads_first_1.log | head -4
tar -C $OUT -czf $OUT/c4.tgz r && rm -rf $R
