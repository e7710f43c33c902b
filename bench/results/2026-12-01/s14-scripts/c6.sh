#!/usr/bin/env bash
# Session 14, call 6: does staging the cluster merge over the placed tiles (60e2481,
# .device/bin) cost the 16 x 4K cluster row 0.3-0.4 us against 5524aaa (.device/ab), as call 4
# suggested? Both builds interleaved four times over 32/8 and 64/8 x 16 x 4K (the op and
# p2048_n64_c). Staged: bash scripts/stage_for_device.sh; bash scripts/stage_ab.sh 5524aaa.
set -u
R=$OUT/r; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python:$PWD/bench/peers PEERS_DIR=$PWD/.peers LD_LIBRARY_PATH=$PWD/.device/bin
for i in 1 2 3 4; do for X in bin ab; do
  OUT=$R/$X TILEJIT_LIB=$PWD/.device/$X/libtilejit_c.so TILEJIT_CACHE_DIR=/tmp/c6-$X CELLS=32/8:16:4096,64/8:16:4096 \
    PARTITIONS=2048 BLOCK_NS=64 MERGE_IN_KERNEL=c timeout 60 python3 bench/bench_decode.py > $R/${X}_$i.log 2>&1
done; done
python3 - $R/bin/decode_tilejit.jsonl $R/ab/decode_tilejit.jsonl <<'PY' | tee $R/compare.txt
import json, sys
runs = [[json.loads(l) for l in open(p) if '"hq"' in l] for p in sys.argv[1:]]
for new, old in zip(*runs):
    peer = min(new[k + "_us"] for k in ("unified", "unified_alt", "decode_s4", "decode_s16") if k + "_us" in new)
    print(f"{new['hq']}/{new['hkv']} x 16 x 4K  op 60e2481 {new['tilejit_op_us']:.1f} 5524aaa {old['tilejit_op_us']:.1f}  "
          f"p2048_n64_c {new['tilejit_p2048_n64_c_us']:.1f} / {old['tilejit_p2048_n64_c_us']:.1f}  peer {peer:.1f}")
PY
tar -C $OUT -czf $OUT/c6.tgz r && rm -rf $R
