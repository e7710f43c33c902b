#!/usr/bin/env bash
# Builds the fuzzers (clang, ASan + UBSan, libFuzzer) in build-fuzz/ and runs each for SECONDS
# (default 20) from its committed corpus (tests/fuzz/corpus/<name>/, read only; new inputs go
# to a scratch folder). Exit 1 when one finds a crash, leak or undefined behaviour: the input is
# left as build-fuzz/crash-<name>-* to become a test. Usage: tests/fuzz/run.sh [SECONDS] [NAME...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
shift || true
names=${*:-aot_manifest bundle cache_entry cli_options template}
jobs=${TILEJIT_BUILD_JOBS:-$(nproc)}
if [ ! -f build-fuzz/build.ninja ]; then
  CXX=clang++-22 cmake -S tests/fuzz -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release > /dev/null
fi
cmake --build build-fuzz -j "$jobs" > /dev/null
# The template fuzzer links the MLIR front end: the main project, every tilejit source under the
# sanitizers, in its own build folder (only the targets fuzz_template needs are built).
if [[ " $names " == *" template "* ]]; then
  if [ ! -f build-fuzz-mlir/build.ninja ]; then
    launcher=()
    command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
    cmake -S . -B build-fuzz-mlir -G Ninja -DCMAKE_BUILD_TYPE=Release -DTILEJIT_FUZZ=ON \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 "${launcher[@]}" \
      "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined" \
      "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -g -DNDEBUG" \
      "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" > /dev/null
  fi
  cmake --build build-fuzz-mlir -j "$jobs" --target fuzz_template > /dev/null
fi
status=0
for name in $names; do
  scratch=$(mktemp -d)
  binary=build-fuzz/fuzz_$name
  [ "$name" = template ] && binary=build-fuzz-mlir/bin/fuzz_template
  # -timeout: an input that takes seconds (an unroll or a grid left unbounded) is a finding too.
  if "$binary" "$scratch" tests/fuzz/corpus/$name -max_total_time="$seconds" -timeout=20 \
       -artifact_prefix="build-fuzz/crash-$name-" -print_final_stats=1 > "build-fuzz/$name.log" 2>&1; then
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' build-fuzz/$name.log | grep -o '[0-9]*$')
    coverage=$(grep -o 'cov: [0-9]* ft: [0-9]*' build-fuzz/$name.log | tail -1)
    echo "fuzz $name: $runs inputs in ${seconds}s ($coverage), no finding"
  else
    echo "fuzz $name: FINDING (build-fuzz/$name.log, input build-fuzz/crash-$name-*)"
    tail -30 "build-fuzz/$name.log"
    status=1
  fi
  rm -rf "$scratch"
done
exit $status
