#!/usr/bin/env bash
# Builds the fuzzers (clang, ASan + UBSan, libFuzzer) in build-fuzz/ and runs each for SECONDS
# (default 20) from its committed corpus (tests/fuzz/corpus/<name>/, read only; new inputs go
# to a scratch folder). Exit 1 when one finds a crash, leak or undefined behaviour: the input is
# left as build-fuzz/crash-<name>-* to become a test. Usage: tests/fuzz/run.sh [SECONDS] [NAME...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
shift || true
names=${*:-aot_manifest bundle cache_entry cli_options}
if [ ! -f build-fuzz/build.ninja ]; then
  CXX=clang++-22 cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
fi
cmake --build build-fuzz -j "${TILEJIT_BUILD_JOBS:-$(nproc)}" > /dev/null
status=0
for name in $names; do
  scratch=$(mktemp -d)
  if ./build-fuzz/fuzz_$name "$scratch" tests/fuzz/corpus/$name -max_total_time="$seconds" \
       -artifact_prefix="build-fuzz/crash-$name-" -print_final_stats=1 > "build-fuzz/$name.log" 2>&1; then
    echo "fuzz $name: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' build-fuzz/$name.log | grep -o '[0-9]*$') inputs in ${seconds}s, no finding"
  else
    echo "fuzz $name: FINDING (build-fuzz/$name.log, input build-fuzz/crash-$name-*)"
    tail -30 "build-fuzz/$name.log"
    status=1
  fi
  rm -rf "$scratch"
done
exit $status
