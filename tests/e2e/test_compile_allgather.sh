#!/usr/bin/env bash
# The all-gather with its setup phase: pinned peer addresses make it faster
# than the default chained setup, and the profile says so.
source "$(dirname "$0")/lib.sh"
cycles_of() {  # the all_gather row's time column
  awk '$1 == "all_gather" { print $3 }' "$1"
}
"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/chained" >/dev/null
"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/pinned" --set schedule.allgather_setup=pinned >/dev/null
"$SNR" run "$WORK/chained" >"$WORK/chained.out"
"$SNR" run "$WORK/pinned" >"$WORK/pinned.out"
chained=$(cycles_of "$WORK/chained.out")
pinned=$(cycles_of "$WORK/pinned.out")
[[ -n "$chained" && -n "$pinned" ]] || fail "no all_gather row in the profile"
awk -v c="$chained" -v p="$pinned" 'BEGIN { exit !(p < c) }' || fail "pinned ($pinned us) not faster than chained ($chained us)"
"$SNR" disasm "$WORK/chained/chip0.elf" >"$WORK/disasm.out"
expect_contains "$WORK/disasm.out" "<all_gather.setup>:"
"$SNR" disasm "$WORK/pinned/chip0.elf" >"$WORK/disasm.out"
if grep -q "<all_gather.setup>:" "$WORK/disasm.out"; then fail "pinned mode still has a setup phase"; fi

# What-if on the hardware the model was compiled for: a shorter DMA base
# latency shortens the chained setup phase.
"$SNR" run "$WORK/chained" --set dma.base_latency=100ns >"$WORK/fast.out"
fast=$(cycles_of "$WORK/fast.out")
awk -v c="$chained" -v f="$fast" 'BEGIN { exit !(f < c) }' || fail "base latency 100ns ($fast us) not faster ($chained us)"
expect_fail "$SNR" run "$WORK/chained" --functional
expect_contains "$WORK/expect_fail.out" "timing mode"
# The programs are one per chip: another chip count is refused, not
# replaced by the model's (the run used to print 4 chips for --set chips=2).
expect_fail "$SNR" run "$WORK/chained" --set chips=2
expect_contains "$WORK/expect_fail.out" "the model was compiled for 4 chips; chips = 2 does not apply to it"
