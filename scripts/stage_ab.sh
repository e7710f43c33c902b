#!/usr/bin/env bash
# Adds a second build to .device for an A/B in one device call (bench/run_h200.sh ab): checks
# out REV, builds the C ABI library and the GPU tests incrementally in build/, copies them
# (stripped) to .device/ab, then checks the current branch out and rebuilds it. Run after
# scripts/stage_for_device.sh (which empties .device); Abseil comes from .device/bin.
# Usage: bash scripts/stage_ab.sh REV [DIR]   (DIR under .device, default ab: a second REV
# goes beside the first as, e.g., ab2)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: stage_ab.sh REV [DIR]}
dir=.device/${2:-ab}
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "stage_ab.sh: the work tree has uncommitted changes; commit or stash them first" >&2
  exit 1
fi
here=$(git symbolic-ref --quiet --short HEAD || git rev-parse HEAD)
restore() { git checkout -q "$here" && ninja -C build tilejit_c tilejit_gpu_tests > /dev/null; }
trap restore EXIT
git checkout -q "$rev"
ninja -C build tilejit_c tilejit_gpu_tests > /dev/null
rm -rf "$dir" && mkdir -p "$dir"
for f in libtilejit_c.so tilejit_gpu_tests; do
  cp "build/bin/$f" "$dir/"
  strip --strip-unneeded "$dir/$f"
done
git log -1 --format='%h %s' > "$dir/REV"
# The device tool carries at most 64 MiB: the CLI and the runtime tests are not used by the
# ab step, so they go first when two builds do not fit beside them.
if [ "$(du -sm .device | cut -f1)" -gt 60 ]; then
  rm -f .device/bin/tilejit .device/bin/tilejit_runtime_tests
  echo "stage_ab.sh: removed .device/bin/tilejit and tilejit_runtime_tests (64 MiB carry limit)"
fi
du -sh .device
