#!/usr/bin/env bash
# Session 16, call 1: branch rotate-prefetch-loop f0413d2 (main 43e8a75 + the rotated decode
# loop, its table lookups an iteration ahead) in .device/bin against main 43e8a75
# (.device/ab.tar.xz: libtilejit_c.so, tilejit_bench_jit): GPU tests; 16 x 4K through the op,
# interleaved four times; cold JIT, order bin ab ab bin, three times.
set -u
tar -C .device -xJf .device/ab.tar.xz
B=.device/bin; R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $R/gpu.txt; hostname >> $R/gpu.txt
TILEJIT_CACHE_DIR=/tmp/c1-tests $B/tilejit_gpu_tests --gtest_brief=1 > $R/gpu_tests.txt 2>&1; tail -2 $R/gpu_tests.txt
grep -B3 -A12 "FAILED\|Failure" $R/gpu_tests.txt | head -30
for i in 1 2 3 4; do for X in bin ab; do
  OUT=$R/b16_$X TILEJIT_LIB=.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c1-b$X CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 60 python3 bench/bench_decode.py > $R/b16_${X}_$i.log 2>&1
done; done
python3 - $R/b16_bin/decode_tilejit.jsonl $R/b16_ab/decode_tilejit.jsonl <<'PY' | tee $R/b16_compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p) if '"hq"' in l] for p in sys.argv[1:]]
for new, old in zip(*runs):
    peer = min(new[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in new)
    print(f"{new['hq']}/{new['hkv']} x 16 x 4K  op f0413d2 {new['tilejit_op_us']:.1f} 43e8a75 {old['tilejit_op_us']:.1f}  peer {peer:.1f}")
PY
for i in 1 2 3; do
  for X in bin ab ab bin; do rm -rf /tmp/c1-jit; TILEJIT_CACHE_DIR=/tmp/c1-jit CUDA_CACHE_DISABLE=1 .device/$X/tilejit_bench_jit cold | sed "s/^{/{\"build\":\"$X\",/"; done
done > $R/jit.jsonl 2>&1
python3 - $R/jit.jsonl <<'PY' | tee $R/jit_summary.txt
import json, sys, statistics as st, collections
d = collections.defaultdict(list)
for l in open(sys.argv[1]):
    try: r = json.loads(l)
    except ValueError: continue
    if r.get("mode") == "cold" and "build" in r: d[(r["template"], r["build"])].append(r["total_s"])
for (t, b), v in sorted(d.items()):
    print(f"{t:22s} {b:3s} median {st.median(v):.3f}  {' '.join(f'{x:.3f}' for x in v)}")
PY
tar -C $OUT -czf $OUT/c1.tgz r && rm -rf $R
