#!/usr/bin/env bash
# Copies the binaries the GPU machine needs into .device/bin (git-ignored, carried by the
# device tool), stripped, with the shared libraries they need that a bare machine lacks
# (Debian's Abseil) beside them; RPATH $ORIGIN finds them there. For the benchmark suites:
# bench/run.sh (bench/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .device && mkdir -p .device/bin
# The default set fits the device tool's 64 MiB carry; the start-up suite's programs (each links
# the compiler) go in a call of their own: STAGE_ONLY="libtilejit_c.so tilejit tilejitd
# tilejit-client tilejit_bench_startup_loader" (bench/README.md, `startup`).
default="tilejit tilejit_gpu_tests tilejit_runtime_tests libtilejit_c.so tilejit_bench_jit"
for f in ${STAGE_ONLY:-$default} "$@"; do
  [ -e "build/bin/$f" ] || continue
  cp "build/bin/$f" .device/bin/
  strip --strip-unneeded ".device/bin/$f"
done
for f in .device/bin/*; do
  ldd "$f" | awk '/=> \// {print $3}' | grep -E 'libabsl_' || true
done | sort -u | while read -r lib; do cp -L "$lib" .device/bin/; done
du -sh .device
