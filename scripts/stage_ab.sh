#!/usr/bin/env bash
# Adds a second build to .device for an A/B in one device call (bench/run.sh ab): checks
# out REV, builds the C ABI library, the GPU tests and the JIT cost benchmark incrementally
# in build/, copies them (stripped) to .device/ab, then checks the current branch out and
# rebuilds it. Run after scripts/stage_for_device.sh (which empties .device); Abseil comes
# from .device/bin.
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
targets=(tilejit_c tilejit_gpu_tests tilejit_bench_jit)
restore() { git checkout -q "$here" && ninja -C build "${targets[@]}" > /dev/null; }
trap restore EXIT
git checkout -q "$rev"
ninja -C build "${targets[@]}" > /dev/null
rm -rf "$dir" && mkdir -p "$dir"
for f in libtilejit_c.so tilejit_gpu_tests tilejit_bench_jit; do
  cp "build/bin/$f" "$dir/"
  strip --strip-unneeded "$dir/$f"
done
git log -1 --format='%h %s' > "$dir/REV"
# Its Python package too: bench/run.sh drives each build's library through its own bindings.
git archive "$rev" python | tar -C "$dir" -x
# The device tool carries at most 64 MiB: two builds fit only packed (a third of their size;
# bench/run.sh unpacks every .device/*.tar.xz it finds).
for d in .device/*/; do
  d=${d%/}
  tar -C .device -I 'xz -T0' -cf "$d.tar.xz" "${d#.device/}" && rm -rf "$d"
done
du -sh .device
