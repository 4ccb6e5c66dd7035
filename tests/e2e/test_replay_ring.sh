# Records the 4-chip ring program (DMAs, remote DMAs, semaphores) from
# `snr device serve`, replays it in timing mode, and checks the run
# database, determinism, a what-if replay with `snr diff`, and the timeline.
source "$(dirname "$0")/lib.sh"
"$SNR" asm "$SRC/src/record/testdata/ring_exchange.s" -o "$WORK/ring.elf"

record() {  # record OUTPUT COUNT
  start_device 120 "$WORK/ring.elf" --chips 4
  timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/ring.elf" --break window_start --count "$2" \
    --chips all --quiet -o "$1" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record failed"; }
  wait "$server"
}

record "$WORK/ring.snr" 5000
"$SNR" replay "$WORK/ring.snr" -o "$WORK/a.db" >"$WORK/replay.out"
cat "$WORK/replay.out"
expect_contains "$WORK/replay.out" "pc sequence and end state match"
expect_contains "$WORK/replay.out" "on 4 chip(s)"
# Every chip runs the same code on its own data, so the WAIT stall charged to
# each chip's DMAs is the same; a remote DMA's completion, which a WAIT on
# both chips consumes, is charged to its issuer's WAIT (the last chip's WAIT
# used to keep it, leaving chip 0's uncharged and chip 3's halved).
[[ "$(grep -c '^  dma: ' "$WORK/replay.out")" == 4 ]] || fail "four per-chip DMA lines"
[[ "$(grep '^  dma: ' "$WORK/replay.out" | sort -u | wc -l)" == 1 ]] || fail "the chips' DMA WAIT stalls differ"
"$SNR" run "$WORK/ring.elf" --chips 4 >"$WORK/run.out"
[[ "$(grep '^  dma: ' "$WORK/run.out" | sort -u | wc -l)" == 1 ]] || fail "snr run: the chips' DMA WAIT stalls differ"

q() { sqlite3 -batch -noheader "$1" "$2"; }
[[ "$(q "$WORK/a.db" "PRAGMA user_version")" == "2" ]] || fail "schema version"
[[ "$(q "$WORK/a.db" "SELECT COUNT(DISTINCT chip) FROM instructions")" == "4" ]] || fail "instructions of 4 chips"
[[ "$(q "$WORK/a.db" "SELECT COUNT(*) FROM dmas WHERE dst_chip != chip")" == "4" ]] || fail "4 remote DMAs"
[[ "$(q "$WORK/a.db" "SELECT COUNT(*) FROM dmas WHERE wait_end_cycle IS NULL")" == "0" ]] || fail "every DMA waited"
[[ "$(q "$WORK/a.db" "SELECT COUNT(*) FROM semaphore_events WHERE op = 'signal' AND from_chip != chip")" -ge 4 ]] \
  || fail "remote semaphore signals"
[[ "$(q "$WORK/a.db" "SELECT COUNT(*) FROM dependencies WHERE kind = 'dma'")" -ge 4 ]] || fail "DMA dependency edges"
q "$WORK/a.db" "SELECT * FROM dma_stalls LIMIT 1" >/dev/null
q "$WORK/a.db" "SELECT * FROM op_summary LIMIT 1" >/dev/null

# Deterministic: every table equal except the wall-clock field.
dump() {
  q "$1" "SELECT * FROM meta WHERE key != 'replay_wall_ns' ORDER BY key"
  q "$1" "SELECT * FROM hw_config"
  for t in chips instructions unit_busy dmas vmem_runs semaphore_events dependencies; do
    q "$1" "SELECT * FROM $t ORDER BY 1, 2, 3, 4"
  done
}
"$SNR" replay "$WORK/ring.snr" -o "$WORK/b.db" --quiet
dump "$WORK/a.db" >"$WORK/a.dump"
dump "$WORK/b.db" >"$WORK/b.dump"
[[ $(wc -l <"$WORK/a.dump") -gt 1000 ]] || fail "dump too small"
cmp "$WORK/a.dump" "$WORK/b.dump" || fail "two replays differ"

# A window that ends mid-program (by count) replays too.
record "$WORK/short.snr" 20
"$SNR" replay "$WORK/short.snr" -o "$WORK/short.db" >"$WORK/short.out"
expect_contains "$WORK/short.out" "end state match"
[[ "$(q "$WORK/short.db" "SELECT COUNT(*) FROM instructions")" == "80" ]] || fail "20 instructions x 4 chips"

# A device on a clock with more digits than a short form keeps replays on
# exactly that clock: the snapshot carries the device's config as text, and
# 1.0000000001GHz written as 1GHz made every 500ns latency one cycle short
# (the whole program: 3341 cycles replayed, 3348 on the device).
start_device 120 "$WORK/ring.elf" --chips 4 --set clock=1.0000000001GHz
timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$WORK/ring.elf" --count 100000 --quiet \
  -o "$WORK/clock.snr" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record at 1.0000000001GHz"; }
wait "$server"
"$SNR" replay "$WORK/clock.snr" -o "$WORK/clock.db" --quiet
device_cycles=$("$SNR" run "$WORK/ring.elf" --chips 4 --set clock=1.0000000001GHz --json |
  python3 -c "import json, sys; print(json.load(sys.stdin)['cycles'])")
# The window ends before the exit ecall, one cycle before the device's run.
[[ "$(q "$WORK/clock.db" "SELECT value FROM meta WHERE key = 'total_cycles'")" == $((device_cycles - 1)) ]] ||
  fail "replay at 1.0000000001GHz: $(q "$WORK/clock.db" "SELECT value FROM meta WHERE key = 'total_cycles'") cycles, device $device_cycles"
expect_contains <(q "$WORK/clock.db" "SELECT yaml FROM hw_config") "clock: 1.0000000001GHz"

# What-if: a slower DMA engine makes the run longer; snr diff says by how much.
"$SNR" replay "$WORK/ring.snr" -o "$WORK/slow.db" --set dma.base_latency=2us --quiet
"$SNR" diff "$WORK/a.db" "$WORK/slow.db" >"$WORK/diff.out"
cat "$WORK/diff.out"
expect_contains "$WORK/diff.out" "total_cycles"
expect_contains "$WORK/diff.out" "dma wait stall cycles"
expect_contains "$WORK/diff.out" "op cycles (all chips)"
"$SNR" diff "$WORK/a.db" "$WORK/slow.db" --json >"$WORK/diff.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); t={r['name']:r for r in d['totals']}; assert t['total_cycles']['delta']>0, t" "$WORK/diff.json" \
  || fail "diff json"
# The per-op cycles are chip cycles: over the 4 chips they add up to 4 x
# the window's length at most.
python3 - "$WORK/diff.json" <<'PY' || fail "op cycles are not the chips' sum"
import json, sys
d = json.load(open(sys.argv[1]))
total = {r["name"]: r for r in d["totals"]}["total_cycles"]["a"]
ops = sum(r["a"] for r in d["op_cycles"])
assert total < ops <= 4 * total, (ops, total)
PY
# The DMA wait stall total is the analyzer's (a WAIT that consumes several
# DMAs stalls once, not once per DMA).
"$SNR" analyze "$WORK/a.db" -o "$WORK/a_report" --no-verify >"$WORK/a_analyze.out" 2>/dev/null
python3 - "$WORK/diff.json" "$WORK/a_analyze.out" <<'PY' || fail "diff and analyze disagree on the DMA wait stall"
import json, re, sys
totals = {r["name"]: r for r in json.load(open(sys.argv[1]))["totals"]}
stall = int(re.search(r"DMA WAIT stalls: ([0-9,]+) cycles", open(sys.argv[2]).read()).group(1).replace(",", ""))
assert totals["dma_wait_stall_cycles"]["a"] == stall, (totals["dma_wait_stall_cycles"], stall)
PY
# ...and so is each DMA's row, also where a WAIT stalls past its DMA's
# end: on a 2x2 torus the previous chip's DMA reaches chip 0 and chip 2 a
# hop later than their own DMAs end, and the rows gave the WAIT's whole
# stall (740 cycles) where snr analyze charges the DMA 635.
"$SNR" replay "$WORK/ring.snr" -o "$WORK/torus.db" --set topology.kind=torus2d --quiet
"$SNR" diff "$WORK/a.db" "$WORK/torus.db" --json >"$WORK/torus_diff.json"
"$SNR" analyze "$WORK/torus.db" -o "$WORK/torus_report" --no-verify >/dev/null 2>&1
python3 - "$WORK/torus_diff.json" "$WORK/torus_report/tables/dmas.json" "$WORK/torus.db" <<'PY' \
  || fail "diff's per-DMA rows or the dma_stalls view are not analyze's per-DMA stalls"
import json, sqlite3, sys
rows = json.load(open(sys.argv[1]))["dma_wait_stall_cycles"]
analyzed = sorted(json.load(open(sys.argv[2])), key=lambda r: r["dma_id"])
by_chip = {}
for r in analyzed:
    by_chip.setdefault(r["chip"], []).append(r["stall_cycles"])
assert len(rows) == len(analyzed), (len(rows), len(analyzed))
for r in rows:
    _, chip, _, n, _ = r["name"].split()
    assert r["b"] == by_chip[int(chip)][int(n)], (r, by_chip[int(chip)][int(n)])
# The case that tells the two definitions apart is there.
db = sqlite3.connect(sys.argv[3])
whole = sum(v for (v,) in db.execute("SELECT wait_stall_cycles FROM dma_stalls WHERE wait_stall_cycles IS NOT NULL"))
assert sum(r["b"] for r in rows) < whole, (sum(r["b"] for r in rows), whole)
# The run data's view charges every DMA what analyze charges it.
view = {row[0]: row[1:] for row in db.execute(
    "SELECT dma_id, charged_stall_cycles, charged_base_stall_cycles, charged_transfer_stall_cycles FROM dma_stalls")}
assert len(view) == len(analyzed), (len(view), len(analyzed))
for r in analyzed:
    want = (r["stall_cycles"], r["base_stall_cycles"], r["transfer_stall_cycles"])
    assert view[r["dma_id"]] == want, (r["dma_id"], view[r["dma_id"]], want)
PY
# ...and every chip's WAITs on DMAs are charged: the total is the chips'
# semaphore-wait stall (the window's WAITs all wait for DMAs).
python3 - "$WORK/a_analyze.out" "$WORK/replay.out" <<'PY' || fail "a WAIT's stall is not charged to its DMAs"
import re, sys
stall = int(re.search(r"DMA WAIT stalls: ([0-9,]+) cycles", open(sys.argv[1]).read()).group(1).replace(",", ""))
waits = sum(int(x) for x in re.findall(r"semaphore-wait (\d+)", open(sys.argv[2]).read()))
assert stall == waits, (stall, waits)
PY
# ...and the ops table's column of that name adds up to it.
python3 - "$WORK/a_report/tables" <<'PY' || fail "the ops' DMA stall does not add up to the summary's"
import csv, json, sys
summary = {row["key"]: row["value"] for row in json.load(open(f"{sys.argv[1]}/summary.json"))}
ops = sum(int(row["dma_stall_cycles"]) for row in csv.DictReader(open(f"{sys.argv[1]}/ops.csv")))
assert ops == summary["dma_stall_cycles"], (ops, summary["dma_stall_cycles"])
PY
# A damaged run.db is refused naming the row, not analyzed into negative
# times: a negative issue cycle, a WAIT step no instruction has.
cp "$WORK/a.db" "$WORK/damaged.db"
sqlite3 "$WORK/damaged.db" "UPDATE instructions SET issue_cycle = -5 WHERE step = 1"
expect_fail "$SNR" analyze "$WORK/damaged.db" -o "$WORK/damaged_report" --no-verify
expect_contains "$WORK/expect_fail.out" "instructions: row 2: issue_cycle is -5"
cp "$WORK/a.db" "$WORK/damaged.db"
sqlite3 "$WORK/damaged.db" "UPDATE dmas SET wait_step = 999999999 WHERE wait_step IS NOT NULL"
expect_fail "$SNR" export "$WORK/damaged.db" --perfetto "$WORK/damaged.json"
expect_contains "$WORK/expect_fail.out" "is waited for at step 999999999, which is no instruction"
[[ ! -e "$WORK/damaged.json" ]] || fail "a refused run.db left a half-written export"
expect_fail "$SNR" replay "$WORK/ring.snr" -o "$WORK/bad.db" --set dma.no_such_key=1
[[ ! -e "$WORK/bad.db" ]] || fail "failed replay left a run.db"
# An output that is the input (by any path) is refused and the input kept:
# the recording is the only copy of the device state.
cp "$WORK/ring.snr" "$WORK/ring_copy.snr"
expect_fail "$SNR" replay "$WORK/ring.snr" -o "$WORK/./ring.snr"
expect_contains "$WORK/expect_fail.out" "is the input file"
cmp "$WORK/ring.snr" "$WORK/ring_copy.snr" || fail "replay -o INPUT changed the snapshot"
cp "$WORK/a.db" "$WORK/a_copy.db"
expect_fail "$SNR" export "$WORK/a.db" --perfetto "$WORK/a.db"
expect_contains "$WORK/expect_fail.out" "--perfetto $WORK/a.db: is the input file"
cmp "$WORK/a.db" "$WORK/a_copy.db" || fail "export --perfetto INPUT changed the run database"

# Timeline.
"$SNR" export "$WORK/a.db" --perfetto "$WORK/ring.json" >/dev/null
python3 - "$WORK/ring.json" <<'PY' || fail "timeline JSON"
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
assert any(e.get("ph") == "s" for e in events), "no flow arrows"
assert any(e.get("ph") == "C" for e in events), "no counters"
PY

# Files that are not run databases are rejected with the reason.
echo "not a database" >"$WORK/text.db"
expect_fail "$SNR" export "$WORK/text.db" --perfetto "$WORK/x.json"
expect_contains "$WORK/expect_fail.out" "not a run database"
echo "replay ring ok"
