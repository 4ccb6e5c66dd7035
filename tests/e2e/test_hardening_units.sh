#!/usr/bin/env bash
# Issue 18, units: every quantity with a unit has a valid range; values
# outside it are errors naming the key (no silent Q16 wrap-around), and the
# edges of the range are computed, not clamped.
source "$(dirname "$0")/lib.sh"
cycles_of() { awk '$1 == "all_gather" { print $3 }' "$1"; }

"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/ag" >/dev/null
"$SNR" run "$WORK/ag" >"$WORK/base.out"
base=$(cycles_of "$WORK/base.out")
[[ -n "$base" ]] || fail "no all_gather row"

# The observed cases: 1e30TB/s used to run as slowly as 1B/s.
for key in hbm.bandwidth ici.link_bandwidth smem.bandwidth vmem.bandwidth; do
  status=0
  "$SNR" run "$WORK/ag" --set "$key=1e30TB/s" >"$WORK/out" 2>&1 || status=$?
  ((status == 1)) || { cat "$WORK/out"; fail "$key=1e30TB/s: exit $status, expected 1"; }
  expect_contains "$WORK/out" "$key = 1e30TB/s is out of range: valid 1MB/s .. 1PB/s"
  expect_fail "$SNR" run "$WORK/ag" --set "$key=1e-15GB/s"
  expect_contains "$WORK/expect_fail.out" "$key"
done
expect_fail "$SNR" run "$WORK/ag" --set dma.base_latency=10s
expect_contains "$WORK/expect_fail.out" "dma.base_latency = 10s is out of range: valid 0ns .. 1s"
expect_fail "$SNR" run "$WORK/ag" --set clock=1THz
expect_contains "$WORK/expect_fail.out" "clock"
expect_fail "$SNR" run "$WORK/ag" --set hbm.bytes=1PiB
expect_contains "$WORK/expect_fail.out" "hbm.bytes"

# In range, even at the top, the time is computed: faster links and HBM can
# only make the all-gather faster, never slower.
"$SNR" run "$WORK/ag" --set ici.link_bandwidth=1PB/s --set hbm.bandwidth=1PB/s >"$WORK/fast.out"
fast=$(cycles_of "$WORK/fast.out")
[[ -n "$fast" ]] || fail "no all_gather row at 1PB/s"
awk -v b="$base" -v f="$fast" 'BEGIN { exit !(f > 0 && f < b) }' || fail "1PB/s ($fast) not faster than default ($base)"

# Hardware files: the same ranges, with file and line.
printf 'chips: 2\nhbm:\n  bandwidth: 1e30TB/s\n' >"$WORK/hw.yaml"
echo '_start: ret' >"$WORK/p.s"
"$SNR" asm "$WORK/p.s" -o "$WORK/p.elf"
expect_fail "$SNR" run "$WORK/p.elf" --hw "$WORK/hw.yaml"
expect_contains "$WORK/expect_fail.out" "hw.yaml:3"
expect_contains "$WORK/expect_fail.out" "hbm.bandwidth"
echo "hardening units ok"
