#!/usr/bin/env bash
# Bad specs fail with a clear message naming file, line and key, and leave
# no output directory behind.
source "$(dirname "$0")/lib.sh"
printf 'model:\n  hidden: 1024\n  hiden: 3\n' >"$WORK/typo.yaml"
expect_fail "$SNR" compile "$WORK/typo.yaml" -o "$WORK/out"
expect_contains "$WORK/expect_fail.out" "typo.yaml:3: unknown key 'model.hiden'"
[[ ! -e "$WORK/out/manifest.json" ]] || fail "manifest written for a bad spec"

printf 'phase: training\n' >"$WORK/phase.yaml"
expect_fail "$SNR" compile "$WORK/phase.yaml" -o "$WORK/out"
expect_contains "$WORK/expect_fail.out" "phase.yaml:1: phase: 'training' is not one of: decode, prefill"

expect_fail "$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/out" --set schedule.prefetch_distance=5
expect_contains "$WORK/expect_fail.out" "needs schedule.buffering > 5"

expect_fail "$SNR" compile "$SRC/examples/llm-decode.yaml" -o "$WORK/out" --set schedule.kv_prefetch=early
expect_contains "$WORK/expect_fail.out" "schedule.kv_prefetch: 'early' is not one of: late, ahead"

expect_fail "$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/out" --set collective.bytes_per_chip=5000
expect_contains "$WORK/expect_fail.out" "not a multiple of T * 4096"

# A damaged manifest is reported with its file name.
"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/ag" >/dev/null
printf '{"format": "snr-compiled-model", "version": 1}' >"$WORK/ag/manifest.json"
expect_fail "$SNR" run "$WORK/ag"
expect_contains "$WORK/expect_fail.out" "manifest.json"

# A hardware file that gives another chip count than parallel.tensor is
# refused (the count used to be replaced by T without a word); one that
# gives T, or no count, compiles.
printf 'chips: 8\n' >"$WORK/eight.yaml"
expect_fail "$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/ag8" --set "hardware=$WORK/eight.yaml"
expect_contains "$WORK/expect_fail.out" "gives chips: 8, but parallel.tensor is 4"
[[ ! -e "$WORK/ag8" ]] || fail "compile left ag8 behind"
printf 'chips: 4\nclock: 1GHz\n' >"$WORK/four.yaml"
"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/ag4" --set "hardware=$WORK/four.yaml" >/dev/null
