#!/bin/sh
# Builds the CUDA device-library self-test: build/devlib_selftest (static cudart, sm_90).
# Run it on a machine with an H100/H200; it prints PASS/FAIL per check and exits non-zero on
# any failure (77 when no device is present).
set -e
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$root/build"
flags="-O3 -std=c++17 -arch=sm_90 -cudart static -I$root/templates/device/cuda -I$root/templates/device/common -I$root/tests/device_lib"
nvcc $flags -c "$root/tests/device_lib/cuda_selftest.cu" -o "$root/build/devlib_selftest_t128.o" &
nvcc $flags -c "$root/tests/device_lib/cuda_selftest_t64.cu" -o "$root/build/devlib_selftest_t64.o" &
wait %1 && wait %2
nvcc -arch=sm_90 -cudart static "$root/build/devlib_selftest_t128.o" "$root/build/devlib_selftest_t64.o" \
  -o "$root/build/devlib_selftest"
echo "built $root/build/devlib_selftest"
