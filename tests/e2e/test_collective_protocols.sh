#!/usr/bin/env bash
# snr collective protocols: seed 003 §3.2's α–β comparison of LL and Simple
# through the CLI — the crossover sizes, the table, the JSON and bad input.
source "$(dirname "$0")/lib.sh"

"$SNR" collective protocols --bandwidth 256GiB/s --latency 0.5us 5us > "$WORK/p256.txt"
expect_contains "$WORK/p256.txt" "latency 0.5us: equal at 274878 B; Simple faster from 512KiB"
expect_contains "$WORK/p256.txt" "latency 5us: equal at 2748779 B; Simple faster from 4MiB"

"$SNR" collective protocols --bandwidth 1TiB/s --latency 0.5us 5us --json > "$WORK/p1t.json"
python3 - "$WORK/p1t.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = [(l["latency_ns"], l["simple_overtakes_ll_bytes"]) for l in d["links"]]
assert got == [(500, 2 << 20), (5000, 16 << 20)], got
for link in d["links"]:
    for row in link["sizes"]:
        # The table agrees with the crossover it reports.
        simple_first = row["bytes"] >= link["simple_overtakes_ll_bytes"]
        assert (row["simple_ns"] < row["ll_ns"]) == simple_first, row
PY

expect_fail "$SNR" collective protocols --bandwidth 256GiB --latency 1us
expect_contains "$WORK/expect_fail.out" "--bandwidth"
expect_fail "$SNR" collective protocols --bandwidth 1e30GB/s
expect_contains "$WORK/expect_fail.out" "at most 1PB/s"
expect_fail "$SNR" collective protocols --bandwidth 0GB/s
expect_contains "$WORK/expect_fail.out" "--bandwidth"
expect_fail "$SNR" collective protocols --latency 2s
expect_contains "$WORK/expect_fail.out" "at most 1s"
expect_fail "$SNR" collective protocols --latency 5
expect_contains "$WORK/expect_fail.out" "--latency"
expect_fail "$SNR" collective protocols --min-size 1MiB --max-size 1KiB
expect_contains "$WORK/expect_fail.out" "non-empty range"
echo OK
