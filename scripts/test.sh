#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (unit,
# golden, end-to-end and fuzz-corpus tests). Usage: scripts/test.sh
# Environment: SNR_SANITIZE=1 runs the suite under ASan+UBSan in build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=build
if [[ "${SNR_SANITIZE:-0}" == 1 ]]; then
  BUILD_DIR=build-asan
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi
scripts/build.sh "$BUILD_DIR"
cd "$BUILD_DIR"
ctest --output-on-failure -j "$(nproc)" --timeout 900
