#!/usr/bin/env bash
# Installs what is missing, builds, and runs snr's main job on built-in
# defaults (`snr demo`). Extra arguments go to `snr demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
exec build/snr demo "$@"
