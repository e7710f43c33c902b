#!/usr/bin/env bash
# Session 20, call 3: clusters of 2 merge by push (the first program to finish hands its
# partial to the last, which merges in registers; no cluster barrier after the loops) in
# .device/bin, against main 04fbdb2's device library (.device/oldlib, plus a no-op
# cluster_merge_begin for the new emitter): GPU tests, 16 x 4K (the table's cluster of 2) and
# 32/8 x 1 x 4K (a cluster of 8: unchanged code) through the op, four interleaved rounds; the
# new library's timeline and tail at 32/8 x 16 x 4K.
OUT=$OUT CELLS=32/8:16:4096,64/8:16:4096,32/8:1:4096 ROUNDS=4 TIMELINE=32/8:16:4096 \
  PARTITIONS=2048 BLOCK_NS=64 bash bench/ab_library.sh .device/oldlib/templates/device
