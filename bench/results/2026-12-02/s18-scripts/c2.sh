#!/usr/bin/env bash
# Session 18, call 2: cold JIT of head 128 (after the merge kernel's compile, which takes the
# process's nvrtc start-up) with the new device library (.device/bin, embedded) against main's
# 58582c5 (.device/oldlib), alternating new old old new, eight times; then batch-1 and 16 x 4K
# cells through the op with three libraries, interleaved four times: new (threadId's range as
# a mask), a (the same library with the old __builtin_assume, .device/liba) and old.
set -u
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B TILEJIT_LIB=$B/libtilejit_c.so
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt; nproc >> $R/gpu.txt
libdir() { case $1 in old) echo $PWD/.device/oldlib/templates/device;; a) echo $PWD/.device/liba;; esac; }
for i in 1 2 3 4 5 6 7 8; do for X in new old old new; do
  lib=(); [ $X != new ] && lib=(TILEJIT_DEVICE_LIB_DIR=$(libdir $X))
  rm -rf /tmp/c2-jit; env "${lib[@]}" TILEJIT_CACHE_DIR=/tmp/c2-jit CUDA_CACHE_DISABLE=1 \
    $B/tilejit_bench_jit cold paged_decode_reduce paged_decode_head128 | sed "s/^{/{\"lib\":\"$X\",\"round\":$i,/"
done; done > $R/jit.jsonl 2>&1
python3 - $R/jit.jsonl <<'PY' | tee $R/jit_summary.txt
import json, sys, statistics as st, collections
d = collections.defaultdict(list); pairs = collections.defaultdict(dict)
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    if r.get("mode") != "cold": continue
    d[(r["template"], r["lib"])].append(r["total_s"])
    pairs[(r["template"], r["round"])].setdefault(r["lib"], []).append(r["total_s"])
for (t, lib), w in sorted(d.items()):
    print(f"{t:22s} {lib:4s} median {st.median(w):.3f}  [{min(w):.3f}-{max(w):.3f}]  all {' '.join(f'{x:.3f}' for x in w)}")
for t in sorted({k[0] for k in pairs}):
    ratios = [st.mean(v["new"]) / st.mean(v["old"]) for (tt, _), v in pairs.items() if tt == t]
    print(f"{t:22s} new/old per round (means of 2): median {st.median(ratios):.3f}  {' '.join(f'{x:.3f}' for x in ratios)}")
PY
for i in 1 2 3 4; do for X in new a old; do
  lib=(); [ $X != new ] && lib=(TILEJIT_DEVICE_LIB_DIR=$(libdir $X))
  env "${lib[@]}" OUT=$R/ab_$X TILEJIT_CACHE_DIR=/tmp/c2-b$X CELLS=32/8:1:4096,64/8:1:1024,32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 timeout 100 python3 bench/bench_decode.py > $R/ab_${X}_$i.log 2>&1
done; done
(cd bench && python3 decode_ab.py $R/ab_new/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tail -5 | tee $R/ab_new_old.txt
(cd bench && python3 decode_ab.py $R/ab_a/decode_tilejit.jsonl $R/ab_old/decode_tilejit.jsonl) | tail -5 | tee $R/ab_a_old.txt
tar -C $OUT -czf $OUT/c2.tgz r && rm -rf $R
