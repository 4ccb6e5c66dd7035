#!/usr/bin/env bash
# Installs what is missing, builds, and runs snr's main job on built-in
# defaults (`snr demo`): compile the default LLM decode step, serve it,
# record a window, replay, analyze, verify suggestions, and write the report
# to snr-demo/report/index.html. Extra arguments go to `snr demo` (e.g.
# `--count 20000` for a shorter window, `-o DIR`, `--builtin`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# Only the CLI: the tests and benchmarks (most of the build) are
# scripts/test.sh's job.
SNR_TARGETS=snr scripts/build.sh build
exec build/snr demo "$@"
