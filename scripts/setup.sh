#!/usr/bin/env bash
# Installs the Debian packages snr needs to build, test and run. Idempotent:
# packages already present are skipped, so a second run does nothing.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build ccache clang libclang-rt-14-dev
  # libraries
  libprotobuf-dev protobuf-compiler libyaml-cpp-dev nlohmann-json3-dev
  libcli11-dev libfmt-dev libzstd-dev zlib1g-dev libdeflate-dev libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libsimdjson-dev libpugixml-dev
  # optional in CMake (snr builds and runs without them): the packet-level
  # network backend, sweeps across MPI ranks, the Python module
  libns3-dev libopenmpi-dev openmpi-bin pybind11-dev python3-pybind11 python3-dev
  # peers used by tests: RISC-V binutils/gcc/qemu, gdb, graphviz, chromium
  binutils-riscv64-linux-gnu gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user gdb-multiarch
  graphviz chromium sqlite3 python3
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
