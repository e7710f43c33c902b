#!/usr/bin/env bash
# The benchmark suites, on the GPU machine, in one device call (bench/README.md):
#   bash bench/run.sh [SUITE...]        (default: tests run memory decode jit)
# Suites (each writes under $OUT; a suite's last lines are its summary):
#   tests      .device/bin/tilejit_gpu_tests
#   run        every shipped template through `tilejit run`
#   memory     merge_attn_states and reshape_and_cache against the peers (bench_memory_kernels.py)
#   dsa        the DSA decode kernels (candidate_mask, the indexer cache kernels) against the
#              peers (bench_dsa.py; ITEMS, BLOCK_SIZES pass through)
#   mla        MLA decode (mla_decode) against vLLM's Triton MLA decode (bench_mla.py; BLOCKS,
#              HEADS, BATCHES, CTXS, CTXS16, MLA_PARAMS pass through)
#   prefill    prefill and extend (prefill, extend) against cuDNN SDPA and FA2 (bench_prefill.py;
#              BATCH, HEADS, SEQS, HEAD_SIZES, SEQS_D, CTXS, NEW, PREFILL_PARAMS pass through)
#   decode     the paged-decode matrix against the peers (bench_decode.py; its variables pass
#              through: CELLS, PARTITIONS, BLOCK_NS, HEAD_SIZE, ...), scored (decode_goals.py),
#              ranked per table class (decode_table.py), per cell (decode_cells.py)
#   decode-models  the served models' decode shapes (bench_decode_models.py: fp8 caches against
#              bf16, MQA 71/1 and 48/1 against vLLM, sinks against none, the op against cuDNN
#              on contiguous K/V; PARTS picks some), goals per cell (decode_models_summary.py)
#   jit        cold JIT, warm start and launch cost (tilejit_bench_jit)
#   startup    8 ranks loading one model's kernels: cold/warm, in-process, through tilejitd,
#              from Redis; the daemon's round trip and 64 clients (bench_startup.py; PROCS,
#              CLIENTS, REQUESTS, ROUNDS, SCENARIOS pass through)
#   timeline   the decode op with the device library's trace switch: each program's timeline
#              (decode_timeline.py; CELLS, LENS, RUNS) and the launches' tail (timeline_tail.py)
#   ab         ab-decode and ab-jit: .device/bin (new) against .device/ab (scripts/stage_ab.sh)
#   ab-tests   the GPU tests of .device/ab
#   ab-decode  the matrix through the op with new, base, new again (decode_compare.py)
#   ab-jit     cold JIT, warm start and launch of both builds, interleaved (jit_compare.py)
#   peers      the peers alone (bench/peers/run_all.sh)
# Staged here first: scripts/stage_for_device.sh (.device/bin), scripts/stage_ab.sh REV
# (.device/ab), the peer kernels in .peers/; carry .device and .peers.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}
B=.device/bin A=.device/ab
ROUNDS=${ROUNDS:-3}
export PYTHONUNBUFFERED=1 PYTHONPATH=python:bench:bench/peers PEERS_DIR=${PEERS_DIR:-$PWD/.peers}
# Abseil is staged beside .device/bin's binaries only; the baseline's binaries find it there.
export LD_LIBRARY_PATH=$PWD/$B${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} TILEJIT_LIB=$PWD/$B/libtilejit_c.so
export TILEJIT_CACHE_DIR=${TILEJIT_CACHE_DIR:-/tmp/tilejit-cache}
mkdir -p "$OUT"
for packed in .device/*.tar.xz; do  # scripts/stage_ab.sh packs the builds (64 MiB carry limit)
  [ -f "$packed" ] && [ ! -d "${packed%.tar.xz}" ] && tar -C .device -xJf "$packed"
done
{ nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  hostname; lscpu | grep -E "Model name|MHz"; } > "$OUT/env.txt" 2>&1

# gpu_tests BUILD_DIR FILE: the GPU tests of one build, a fresh kernel cache (they took 126 s on
# an H100 before the MLA cases, whose host caches add minutes; GPU_TESTS_TIMEOUT overrides).
gpu_tests() {
  TILEJIT_CACHE_DIR=$(mktemp -d) timeout ${GPU_TESTS_TIMEOUT:-540} "$1/tilejit_gpu_tests" --gtest_brief=1 > "$2" 2>&1
  tail -2 "$2"; grep -B3 -A12 "FAILED\|Failure" "$2" | head -30
}

# decode_run BUILD_DIR RUN_DIR [VAR=VALUE...]: bench_decode.py with one build's library, scored.
decode_run() {
  local dir=$1 run=$2; shift 2
  mkdir -p "$run"
  env "$@" OUT="$run" TILEJIT_LIB="$PWD/$dir/libtilejit_c.so" TILEJIT_CACHE_DIR="$(mktemp -d)" \
    timeout 500 python3 bench/bench_decode.py > "$run/log.txt" 2>&1 || tail -5 "$run/log.txt"
  python3 bench/decode_goals.py "$run/decode_tilejit.jsonl" > "$run/goals.txt" 2>&1
}

# jit_cold BUILD_DIR LABEL: one process compiling every template into an empty cache (nvrtc
# 12.9+ keeps its own cache in the driver's: off), its records labelled with the build.
jit_cold() {
  local cache; cache=$(mktemp -d)
  TILEJIT_CACHE_DIR=$cache CUDA_CACHE_DISABLE=1 timeout 120 "$1/tilejit_bench_jit" cold | label "$2"
  rm -rf "$cache"
}
label() { sed "s/^{/{\"build\":\"$1\",/"; }

suites=" ${*:-tests run memory decode jit} "
for suite in ${suites// ab / ab-decode ab-jit }; do
  echo "=== $suite $(date +%T)"
  case $suite in
    tests) gpu_tests $B "$OUT/gpu_tests.txt" ;;
    run) TILEJIT_CACHE_DIR=$(mktemp -d) $B/tilejit run --iterations 50 > "$OUT/run.txt" 2>&1; tail -12 "$OUT/run.txt" ;;
    memory) OUT=$OUT/memory TILEJIT_CACHE_DIR=$(mktemp -d) timeout 300 python3 bench/bench_memory_kernels.py \
        > "$OUT/memory.txt" 2>&1; tail -12 "$OUT/memory.txt" ;;
    dsa) mkdir -p "$OUT/dsa"; OUT=$OUT/dsa TILEJIT_CACHE_DIR=$(mktemp -d) timeout 500 python3 bench/bench_dsa.py \
        > "$OUT/dsa.txt" 2>&1; tail -40 "$OUT/dsa.txt" ;;
    mla) mkdir -p "$OUT/mla"; OUT=$OUT/mla TILEJIT_CACHE_DIR=$(mktemp -d) timeout 560 python3 bench/bench_mla.py \
        > "$OUT/mla.txt" 2>&1; tail -140 "$OUT/mla.txt" ;;
    prefill) mkdir -p "$OUT/prefill"; OUT=$OUT/prefill TILEJIT_CACHE_DIR=$(mktemp -d) timeout 580 \
        python3 bench/bench_prefill.py > "$OUT/prefill.txt" 2>&1; tail -60 "$OUT/prefill.txt" ;;
    decode) decode_run $B "$OUT/decode"
      python3 bench/decode_table.py "$OUT/decode/decode_tilejit.jsonl" > "$OUT/decode/table.txt" 2>&1
      python3 bench/decode_cells.py "$OUT/decode/decode_tilejit.jsonl" > "$OUT/decode/cells.txt" 2>&1
      tail -40 "$OUT/decode/log.txt"; cat "$OUT/decode/goals.txt" ;;
    decode-models) mkdir -p "$OUT/decode-models"
      OUT=$OUT/decode-models TILEJIT_LIB="$PWD/$B/libtilejit_c.so" TILEJIT_CACHE_DIR=$(mktemp -d) \
        timeout 580 python3 bench/bench_decode_models.py > "$OUT/decode-models/log.txt" 2>&1 \
        || tail -5 "$OUT/decode-models/log.txt"
      python3 bench/decode_models_summary.py "$OUT/decode-models/decode_models.jsonl" \
        | tee "$OUT/decode-models/summary.txt" | tail -60 ;;
    jit) { jit_cold $B bin
        cache=$(mktemp -d); for i in 1 2 3 4 5; do TILEJIT_CACHE_DIR=$cache $B/tilejit_bench_jit warm; done
        $B/tilejit_bench_jit launch; } 2>&1 | tee "$OUT/jit.jsonl" ;;
    startup) OUT=$OUT/startup BIN=$PWD/$B timeout 580 python3 bench/bench_startup.py \
        > "$OUT/startup.txt" 2>&1; tail -14 "$OUT/startup.txt" ;;
    timeline) mkdir -p "$OUT/timeline"
      OUT=$OUT/timeline TILEJIT_CACHE_DIR=$(mktemp -d) timeout 300 python3 bench/decode_timeline.py \
        > "$OUT/timeline/log.txt" 2>&1 || tail -5 "$OUT/timeline/log.txt"
      python3 bench/timeline_tail.py "$OUT/timeline/timeline_raw.txt" 2>&1 | tee "$OUT/timeline/tail.txt" | tail -20 ;;
    ab-tests) mkdir -p "$OUT/ab"; cat $A/REV; gpu_tests $A "$OUT/ab/gpu_tests.txt" ;;
    # new, base, new again: the second run of the new build measures the drift within the call.
    # The op alone (no swept variants); the peers in the first run only (they are the same code).
    ab-decode) mkdir -p "$OUT/ab"; cp $A/REV "$OUT/ab/"; cat $A/REV
      decode_run $B "$OUT/ab/new" PARTITIONS=
      # the baseline with its own Python package (staged beside its library): the bindings
      # follow the C ABI they were written for
      decode_run $A "$OUT/ab/base" PARTITIONS= PEERS=0 PYTHONPATH="$PWD/$A/python:bench:bench/peers"
      decode_run $B "$OUT/ab/new2" PARTITIONS= PEERS=0
      grep -A4 tilejit_op "$OUT/ab/new/goals.txt"
      python3 bench/decode_compare.py "$OUT"/ab/{new,base,new2}/decode_tilejit.jsonl | tee "$OUT/ab/decode_compare.txt" ;;
    ab-jit) mkdir -p "$OUT/ab"
      { for i in $(seq "$ROUNDS"); do jit_cold $B bin; jit_cold $A ab; done
        # warm: the first process compiles the defaults, the next three load them
        for X in bin ab; do cache=$(mktemp -d); TILEJIT_CACHE_DIR=$cache .device/$X/tilejit_bench_jit warm > /dev/null
          for i in 1 2 3; do TILEJIT_CACHE_DIR=$cache .device/$X/tilejit_bench_jit warm | label $X; done; done
        for i in 1 2; do for X in bin ab; do
          { .device/$X/tilejit_bench_jit launch; .device/$X/tilejit_bench_jit validate; } | label $X; done; done
      } > "$OUT/ab/jit.jsonl" 2>&1
      python3 bench/jit_compare.py "$OUT/ab/jit.jsonl" | tee "$OUT/ab/jit_compare.txt" ;;
    peers) OUT=$OUT/peers bash bench/peers/run_all.sh > "$OUT/peers.txt" 2>&1; tail -40 "$OUT/peers.txt" ;;
    *) echo "run.sh: unknown suite '$suite' (see the usage at the top of bench/run.sh)"; exit 2 ;;
  esac
done
