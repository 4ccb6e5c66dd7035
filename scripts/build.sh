#!/usr/bin/env bash
# Configures and builds snr. Usage: scripts/build.sh [BUILD_DIR] [extra cmake args...]
# Environment: SNR_SANITIZE=1 for an ASan+UBSan build; SNR_TSAN=1 for a
# ThreadSanitizer build (in a folder of its own); SNR_FUZZ=1 for the
# libFuzzer targets (clang; builds only the fuzz targets and what they link);
# SNR_TARGETS="snr ..." builds only those targets and what they link (the
# default builds everything: every test and benchmark too).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${1:-build}"
shift || true

args=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo)
if [[ "${SNR_SANITIZE:-0}" == 1 ]]; then args+=(-DSNR_SANITIZE=ON -DSNR_BENCH=OFF); fi
if [[ "${SNR_TSAN:-0}" == 1 ]]; then args+=(-DSNR_TSAN=ON -DSNR_BENCH=OFF); fi
targets=()
for target in ${SNR_TARGETS:-}; do targets+=(--target "$target"); done
if [[ "${SNR_FUZZ:-0}" == 1 ]]; then
  args+=(-DSNR_FUZZ=ON -DSNR_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang)
  targets=(--target snr_fuzz_targets)
fi

export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
export CCACHE_NOHASHDIR=1
export CCACHE_BASEDIR="$PWD"
cmake -S . -B "$BUILD_DIR" "${args[@]}" "$@" >/dev/null
cmake --build "$BUILD_DIR" -j "${SNR_BUILD_JOBS:-$(nproc)}" "${targets[@]}"
