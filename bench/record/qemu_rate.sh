#!/usr/bin/env bash
# Recording rate from qemu-riscv64's gdbstub. Usage:
#   bench/record/qemu_rate.sh BUILD_DIR [COUNT]
# Builds src/record/testdata/checksum.c, records COUNT instructions from
# its `work` function and prints the recorder's summary.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:?usage: qemu_rate.sh BUILD_DIR [COUNT]}"
count="${2:-50000}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
riscv64-linux-gnu-gcc -march=rv64im -mabi=lp64 -static -nostdlib -fno-pie -no-pie -Wl,--no-warn-rwx-segments -O2 \
  -o "$work/checksum.elf" src/record/testdata/checksum.c
port=$((20000 + RANDOM % 40000))
timeout 300 qemu-riscv64 -g "$port" "$work/checksum.elf" &
qemu=$!
for _ in $(seq 1 50); do
  if "$build/snr" record --target "127.0.0.1:$port" --elf "$work/checksum.elf" --break work 2>"$work/err" \
       --count "$count" --quiet -o "$work/qemu.snr"; then
    break
  fi
  sleep 0.1
done
wait "$qemu" || true
[[ -f "$work/qemu.snr" ]] || { cat "$work/err" >&2; exit 1; }
"$build/snr" snapshot info "$work/qemu.snr" | grep -E "captured|recorded"
