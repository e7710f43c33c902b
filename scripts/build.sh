#!/usr/bin/env bash
# Configures (once) and builds tilejit into build/. ccache is used when present.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" "$@"
fi
jobs=${TILEJIT_BUILD_JOBS:-$(nproc)}
cmake --build build -j "$jobs"
