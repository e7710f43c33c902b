#!/usr/bin/env bash
# On the H200 (the device tool, carry .device and .peers): .device/bin's GPU tests, then an A/B
# of its device library ("new", compiled into the binary) against an older one ("old",
# TILEJIT_DEVICE_LIB_DIR) on decode cells through the op, interleaved ROUNDS times with the
# same binary, and, with TIMELINE set, the new library's in-kernel timeline and tail.
# Here, before the call:
#   bash scripts/stage_for_device.sh && mkdir -p .device/oldlib &&
#   git archive REV templates/device | tar -x -C .device/oldlib
# On the device (the command of the call):
#   OUT=$OUT CELLS=32/8:16:4096,32/8:1:4096 [ROUNDS=4] [TUNING_ENV...] [TIMELINE=32/8:16:4096] \
#     bash bench/ab_library.sh .device/oldlib/templates/device
# Everything lands in $OUT/ab.tgz; bench_decode.py's variables (PARTITIONS, BLOCK_NS, ...) pass
# through.
set -u
old=$(cd "${1:?usage: ab_library.sh OLD_DEVICE_LIBRARY_DIR}" && pwd)
B=.device/bin; R=$OUT/r; mkdir -p "$R"
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench/peers PEERS_DIR=.peers LD_LIBRARY_PATH=$PWD/$B \
  TILEJIT_LIB=$B/libtilejit_c.so
TILEJIT_CACHE_DIR=/tmp/ab-tests $B/tilejit_gpu_tests --gtest_brief=1 > "$R/gpu_tests.txt" 2>&1
tail -2 "$R/gpu_tests.txt"; grep -B3 -A12 "FAILED\|Failure" "$R/gpu_tests.txt" | head -30
for i in $(seq "${ROUNDS:-4}"); do
  for X in new old; do
    lib=(); [ $X = old ] && lib=(TILEJIT_DEVICE_LIB_DIR="$old")
    env "${lib[@]}" OUT="$R/ab_$X" TILEJIT_CACHE_DIR=/tmp/ab-$X timeout 200 python3 bench/bench_decode.py \
      > "$R/ab_${X}_$i.log" 2>&1
  done
done
(cd bench && python3 decode_ab.py "$R/ab_new/decode_tilejit.jsonl" "$R/ab_old/decode_tilejit.jsonl") | tee "$R/ab_compare.txt"
if [ -n "${TIMELINE:-}" ]; then
  OUT=$R/tl TILEJIT_CACHE_DIR=/tmp/ab-tl CELLS=$TIMELINE LENS=${LENS:-1,4096} RUNS=${RUNS:-3} \
    timeout 200 python3 bench/decode_timeline.py > "$R/tl.log" 2>&1
  python3 bench/timeline_tail.py "$R/tl/timeline_raw.txt" | tee "$R/tail.txt"
  gzip -f "$R/tl/timeline_raw.txt"
fi
tar -C "$OUT" -czf "$OUT/ab.tgz" r && rm -rf "$R"
