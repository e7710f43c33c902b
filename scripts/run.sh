#!/usr/bin/env bash
# Sets up, builds and runs the main job: every shipped template JIT-compiled for the best
# device present (CPU backend without a GPU), checked against its reference, timed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/bin/tilejit run "$@"
