# `snr run` and `snr record` + `snr replay` + `snr analyze` report the same
# numbers for the same run (metrics defined once, src/metrics): a 4-chip
# program with DMAs, remote DMAs, semaphore waits and vector work, recorded
# from its first instruction (the recorder starts at a break on the entry
# point) to its exit, so the replayed window is the whole run.
source "$(dirname "$0")/lib.sh"
"$SNR" asm "$SRC/src/record/testdata/ring_exchange.s" -o "$WORK/ring.elf"
"$SNR" run "$WORK/ring.elf" --chips 4 --json >"$WORK/run.json"

start_device 120 "$WORK/ring.elf" --chips 4
timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/ring.elf" --break _start --count 100000 \
  --chips all --quiet -o "$WORK/ring.snr" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record failed"; }
wait "$server"
"$SNR" replay "$WORK/ring.snr" -o "$WORK/ring.db" --quiet
"$SNR" analyze "$WORK/ring.db" -o "$WORK/report" >/dev/null

python3 - "$WORK/run.json" "$WORK/report/tables/summary.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
rows = json.load(open(sys.argv[2]))
rows = rows["rows"] if isinstance(rows, dict) else rows
summary = {r["key"]: r["value"] for r in rows}
chips = run["chips"]
n = len(chips)
failures = []
def check(name, ran, analyzed):
    print(f"{name}: run {ran} analyze {analyzed}")
    if ran != analyzed:
        failures.append(name)
# A window that ends by exit stops before each chip's exit ecall: the run
# has one more instruction and one more scalar-busy cycle per chip, and
# ends one cycle later. Everything else is the same run.
check("cycles", run["cycles"], summary["total_cycles"] + 1)
check("instructions", sum(c["instructions"] for c in chips), summary["instructions"] + n)
check("stall_cycles", sum(sum(c["stall_cycles"].values()) for c in chips), summary["stall_cycles"])
for reason in chips[0]["stall_cycles"]:
    check("stall_cycles." + reason, sum(c["stall_cycles"][reason] for c in chips),
          summary.get("stall_cycles." + reason, 0))
# Busy cycles summed over chips, from each side's own utilization and cycles.
for unit, extra in (("matrix", 0), ("vector", 0), ("scalar", n), ("dma", 0)):
    ran = round(sum(c["utilization"][unit] for c in chips) * run["cycles"])
    analyzed = round(summary["utilization." + unit] * n * summary["total_cycles"])
    check(unit + " busy cycles", ran, analyzed + extra)
check("dma_base_stall_cycles", sum(c["dma"]["base_stall_cycles"] for c in chips), summary["dma_base_stall_cycles"])
check("dma_transfer_stall_cycles", sum(c["dma"]["transfer_stall_cycles"] for c in chips),
      summary["dma_transfer_stall_cycles"])
if failures:
    sys.exit("FAIL: differ: " + ", ".join(failures))
if summary["dma_base_stall_cycles"] + summary["dma_transfer_stall_cycles"] == 0:
    sys.exit("FAIL: the program's WAITs should stall on DMAs")
if summary["utilization.dma"] <= 0 or summary["utilization.vector"] <= 0:
    sys.exit("FAIL: the program moves data and uses the vector unit")
PY
# The utilization table's windows tile the run: their cycles add up to the
# total (the last window is cut there) and their busy cycles to the summary's.
python3 - "$WORK/report/tables/utilization.json" "$WORK/report/tables/summary.json" <<'PY'
import collections, json, sys
windows = json.load(open(sys.argv[1]))
summary = {r["key"]: r["value"] for r in json.load(open(sys.argv[2]))}
total = summary["total_cycles"]
cycles, busy = collections.Counter(), collections.Counter()
for w in windows:
    cycles[w["chip"], w["unit"]] += w["window_cycles"]
    busy[w["unit"]] += w["busy_fraction"] * w["window_cycles"]
bad = {key: c for key, c in cycles.items() if c != total}
if bad:
    sys.exit(f"FAIL: utilization windows cover {bad} cycles, the run {total}")
chips = len({chip for chip, _ in cycles})
for unit, b in busy.items():
    expected = summary["utilization." + unit] * chips * total
    if abs(b - expected) > 1e-6 * max(expected, 1):
        sys.exit(f"FAIL: {unit}: windows busy {b} cycles, summary {expected}")
PY
# Run data naming a stall reason or unit the simulator does not have is
# refused with where it is, and no report is left behind.
cp "$WORK/ring.db" "$WORK/bad.db"
sqlite3 "$WORK/bad.db" "UPDATE instructions SET stall_reason = 'bank-conflict' WHERE step = 7"
expect_fail "$SNR" analyze "$WORK/bad.db" -o "$WORK/bad-report"
expect_contains "$WORK/expect_fail.out" "run data: instruction step 7: unknown stall reason 'bank-conflict'"
[[ ! -e "$WORK/bad-report" ]] || fail "a report was written from bad run data"
cp "$WORK/ring.db" "$WORK/bad.db"
sqlite3 "$WORK/bad.db" "UPDATE unit_busy SET unit = 'tensor-core' WHERE rowid = 1"
expect_fail "$SNR" analyze "$WORK/bad.db" -o "$WORK/bad-report"
expect_contains "$WORK/expect_fail.out" "unknown unit 'tensor-core' in unit_busy"
echo "metrics agree ok"
