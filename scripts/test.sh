#!/usr/bin/env bash
# Sets up, builds and runs every test (GoogleTest binaries + lit, then the fuzzers for a
# bounded time). GPU tests skip with a reason where no GPU is present.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
# Tests get a private cache so they never touch the user's.
export TILEJIT_CACHE_DIR="${TILEJIT_TEST_CACHE_DIR:-$(mktemp -d)}"
ctest --test-dir build --output-on-failure "$@"
# The input readers under ASan + UBSan, bounded (tests/fuzz/README.md).
bash tests/fuzz/run.sh "${TILEJIT_FUZZ_SECONDS:-20}"
