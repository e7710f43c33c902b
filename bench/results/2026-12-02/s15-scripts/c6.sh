#!/usr/bin/env bash
# Session 15, call 6: 16 x 4K through the op, 5df463c (.device/bin, rotated loop) against
# a9bd15f (.device/ab: same device library, loop not rotated), interleaved four times.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/.device/bin
for i in 1 2 3 4; do for X in bin ab; do
  OUT=$R/b16_$X TILEJIT_LIB=.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c6-b$X CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 60 python3 bench/bench_decode.py > $R/b16_${X}_$i.log 2>&1
done; done
python3 - $R/b16_bin/decode_tilejit.jsonl $R/b16_ab/decode_tilejit.jsonl <<'PY' | tee $R/b16_compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p) if '"hq"' in l] for p in sys.argv[1:]]
for new, old in zip(*runs):
    peer = min(new[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in new)
    print(f"{new['hq']}/{new['hkv']} x 16 x 4K  op 5df463c {new['tilejit_op_us']:.1f} a9bd15f {old['tilejit_op_us']:.1f}  peer {peer:.1f}")
PY
tar -C $OUT -czf $OUT/c6.tgz r && rm -rf $R
