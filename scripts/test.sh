#!/usr/bin/env bash
# Sets up, builds and runs every test (GoogleTest binaries + lit). GPU tests skip with a
# reason where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# Tests get a private cache so they never touch the user's.
export TILEJIT_CACHE_DIR="${TILEJIT_TEST_CACHE_DIR:-$(mktemp -d)}"
ctest --test-dir build --output-on-failure "$@"
