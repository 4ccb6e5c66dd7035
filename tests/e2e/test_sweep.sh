#!/usr/bin/env bash
# snr sweep end to end: a pathfind grid (table, best point, failed points
# recorded), CSV export with quoting, the HTML report, resume without
# recomputing (also after an interrupt mid-run), bad grids refused before
# any point runs, a sim sweep on generated traces, the examples, and — when
# this snr has MPI and mpirun is installed — the same table from 2 and 4
# ranks as from one process.
source "$(dirname "$0")/lib.sh"

# wait_for_points DB — until a running sweep has committed a point to DB.
wait_for_points() {
  python3 - "$1" <<'PY'
import os, sqlite3, sys, time
deadline = time.time() + 120
while time.time() < deadline:
    try:
        if os.path.exists(sys.argv[1]) and sqlite3.connect(sys.argv[1]).execute("select count(*) from points").fetchone()[0]:
            break
    except sqlite3.OperationalError:
        pass  # not created yet, or locked by a commit
    time.sleep(0.05)
PY
}
EX="$SRC/examples"

json_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# A pathfind grid; tp=5 does not split GPT-3's 96 heads: those points fail
# and are recorded, the sweep goes on.
# The base every pathfind grid below shares: GPT-3 175B on a100-80gb.
pathfind_base() {
  printf 'kind: pathfind\nbase:\n  device: a100-80gb\n  model: %s\n  parallelism: "tp=8,pp=8,sp,recompute=selective"\n' \
    "$EX/pathfind/gpt3-175B-train.yaml"
}
{ pathfind_base; cat <<YAML; } >"$WORK/pf.yaml"
grid:
  device.hbm.bandwidth: [1TB/s, 2TB/s, 4TB/s]
  parallelism: ["tp=8,pp=8,sp,recompute=selective", "tp=4,pp=16,sp,recompute=selective", "tp=5,pp=8"]
YAML
"$SNR" sweep "$WORK/pf.yaml" -o "$WORK/pf.sqlite" --json >"$WORK/pf.json"
python3 - "$WORK/pf.json" "$WORK/pf.sqlite" <<'PY'
import json, sqlite3, sys
s = json.load(open(sys.argv[1]))
assert (s["points"], s["run"], s["ok"], s["failed"], s["skipped"]) == (9, 9, 6, 3, 0), s
assert s["interrupted"] is False and s["remaining"] == 0, s
db = sqlite3.connect(sys.argv[2])
rows = db.execute('select "device.hbm.bandwidth", parallelism, status, error, time_s, memory_fits, '
                  '"time_s.compute" from points').fetchall()
assert len(rows) == 9, rows
time = {}
for bw, par, status, error, t, fits, compute in rows:
    if par == "tp=5,pp=8":
        assert status == "error" and error, (par, status, error)
        continue
    assert status == "ok" and t > 0 and 0 < compute <= t, (bw, par, t, compute)
    time[bw, par] = t
for par in ("tp=8,pp=8,sp,recompute=selective", "tp=4,pp=16,sp,recompute=selective"):
    assert time["4TB/s", par] < time["1TB/s", par], par
best = min(t for (bw, par), t in time.items())
assert abs(s["best"]["value"] - best) <= 1e-12 * best, (s["best"], best)
assert s["best"]["objective"] == "time_s"
meta = dict(db.execute("select name, value from sweep_meta"))
assert meta["kind"] == "pathfind" and "device.hbm.bandwidth" in meta["grid"], meta
PY

# Resume: nothing left to compute; failed points only with --retry-failed.
"$SNR" sweep "$WORK/pf.yaml" -o "$WORK/pf.sqlite" --json >"$WORK/again.json"
[[ "$(json_field "$WORK/again.json" run)" == 0 && "$(json_field "$WORK/again.json" skipped)" == 9 ]] ||
  fail "a finished sweep recomputed points: $(cat "$WORK/again.json")"
"$SNR" sweep "$WORK/pf.yaml" -o "$WORK/pf.sqlite" --retry-failed >"$WORK/retry.txt"
expect_contains "$WORK/retry.txt" "ran 3 points (0 ok, 3 failed), skipped 6"
expect_contains "$WORK/retry.txt" "best: time_s = "

# CSV: one line per point, the parallelism (with commas) quoted and read back whole.
"$SNR" sweep export "$WORK/pf.sqlite" -o "$WORK/pf.csv"
# A directory as the database used to read "no such file"; -o - wrote a file
# named "-" (stdout is -o left out).
mkdir "$WORK/dbdir"
expect_fail "$SNR" sweep export "$WORK/dbdir"
expect_contains "$WORK/expect_fail.out" "'$WORK/dbdir' is a directory; expected a file"
expect_fail "$SNR" sweep report "$WORK/dbdir" -o "$WORK/dbdir-report"
expect_contains "$WORK/expect_fail.out" "'$WORK/dbdir' is a directory; expected a file"
status=0
(cd "$WORK" && "$SNR" sweep export pf.sqlite -o - >"$WORK/dash.out" 2>&1) || status=$?
((status == 2)) || { cat "$WORK/dash.out" >&2; fail "sweep export -o -: exit $status (expected 2)"; }
expect_contains "$WORK/dash.out" "'-' is not a file name here: leave -o out to write to stdout"
[[ ! -e "$WORK/-" ]] || fail "sweep export -o - wrote a file named '-'"
"$SNR" sweep export "$WORK/pf.sqlite" | cmp - "$WORK/pf.csv" || fail "sweep export to stdout differs from -o"
python3 - "$WORK/pf.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert len(rows) == 9, len(rows)
assert {r["parallelism"] for r in rows} == {"tp=8,pp=8,sp,recompute=selective",
                                            "tp=4,pp=16,sp,recompute=selective", "tp=5,pp=8"}
assert all(r["status"] in ("ok", "error") for r in rows)
assert '"tp=5,pp=8"' in open(sys.argv[1]).read()
PY

# The report: a page with inline SVG, and each figure as a valid SVG file.
"$SNR" sweep report "$WORK/pf.sqlite" -o "$WORK/report" >"$WORK/report.txt"
expect_contains "$WORK/report.txt" "index.html"
python3 - "$WORK/report" <<'PY'
import glob, sys, xml.etree.ElementTree as ET
d = sys.argv[1]
html = open(f"{d}/index.html").read()
svgs = sorted(glob.glob(f"{d}/*.svg"))
assert len(svgs) >= 3, svgs
assert html.count("<svg ") == len(svgs), (html.count("<svg "), len(svgs))
assert "<script" not in html and "Best points" in html and "Failed points" in html
for f in svgs:
    root = ET.parse(f).getroot()
    assert root.tag.endswith("svg"), f
names = " ".join(svgs)
assert "device.hbm.bandwidth" in names and "parallelism" in names and "causes" in names, names
PY

# An interrupted sweep keeps what it finished and the resumed run computes
# only the rest.
{ pathfind_base; cat <<YAML; } >"$WORK/big.yaml"
random:
  samples: 8000
  seed: 11
  keys:
    device.hbm.bandwidth: {log-uniform: [1TB/s, 8TB/s]}
    parallelism: {choice: ["tp=8,pp=8,sp,recompute=selective", "tp=4,pp=16,sp,recompute=selective"]}
YAML
# Interrupted once its first points are committed (not after a fixed time:
# a sanitizer build may still be starting up a second later).
"$SNR" sweep "$WORK/big.yaml" -o "$WORK/big.sqlite" --json >"$WORK/big1.json" &
sweeper=$!
wait_for_points "$WORK/big.sqlite"
kill -INT "$sweeper"
status=0
wait "$sweeper" || status=$?
((status == 130)) || fail "an interrupted sweep should exit 130, got $status: $(cat "$WORK/big1.json")"
"$SNR" sweep "$WORK/big.yaml" -o "$WORK/big.sqlite" --json >"$WORK/big2.json"
python3 - "$WORK/big1.json" "$WORK/big2.json" "$WORK/big.sqlite" <<'PY'
import json, sqlite3, sys
first, second = (json.load(open(f)) for f in sys.argv[1:3])
assert first["interrupted"] and first["remaining"] > 0, first
assert first["run"] + first["remaining"] == first["points"], first
assert second["skipped"] == first["run"], (first, second)
assert second["run"] == first["points"] - first["run"], (first, second)
assert not second["interrupted"]
n = sqlite3.connect(sys.argv[3]).execute("select count(*) from points").fetchone()[0]
assert n == first["points"], n
PY

# Bad grids fail before any point runs, naming the key; no database appears.
bad() {
  { pathfind_base; printf 'grid:\n  %s\n' "$1"; } >"$WORK/bad.yaml"
  expect_fail "$SNR" sweep "$WORK/bad.yaml" -o "$WORK/bad.sqlite"
  local expected
  for expected in "${@:2}"; do expect_contains "$WORK/expect_fail.out" "$expected"; done
  [[ ! -e "$WORK/bad.sqlite" ]] || fail "a refused grid created its database"
}
# A field the device does not have: its reader names it.
bad "device.hbm.bandwdth: [1TB/s]" "bad.yaml:7: key 'device.hbm.bandwdth' = '1TB/s'" "bandwdth: unknown key"
bad "modle.hidden: [1024]" "unknown key 'modle.hidden' for a pathfind sweep"
bad "device.hbm.bandwidth: []" "key 'device.hbm.bandwidth': empty list of values"
bad "model.layers: {range: [4, 96], steps: 0}" "key 'model.layers': empty range"
bad "device.hbm.bandwidth: [1TB/s, 80GiB]" "key 'device.hbm.bandwidth' = '80GiB'"
bad "device.hbm.bandwidth: {range: [1TB/s, 80GiB], steps: 3}" "key 'device.hbm.bandwidth': unit mismatch"
bad "parallelism: [[tp=8]]" "key 'parallelism' = '[tp=8]'"
bad "model.hidden: [big]" "key 'model.hidden' = 'big'"
# Whole numbers with more steps than numbers used to merge into fewer points.
bad "model.layers: {range: [95, 96], steps: 3}" "key 'model.layers': the 3 steps of the range [95, 96] cannot all be told apart"

# Six significant digits used to turn [100.0001, 100.0004] in 4 steps into one
# point at 100 GB/s, outside the range.
{ pathfind_base; printf 'grid:\n  device.hbm.bandwidth: {range: [100.0001GB/s, 100.0004GB/s], steps: 4}\n'; } \
  >"$WORK/fine.yaml"
"$SNR" sweep "$WORK/fine.yaml" -o "$WORK/fine.sqlite" --json >"$WORK/fine.json"
python3 - "$WORK/fine.json" "$WORK/fine.sqlite" <<'PY'
import json, sqlite3, sys
s = json.load(open(sys.argv[1]))
assert s["points"] == 4, s
rows = sqlite3.connect(sys.argv[2]).execute('select "device.hbm.bandwidth" from points').fetchall()
assert sorted(r[0] for r in rows) == ["100.0001GB/s", "100.0002GB/s", "100.0003GB/s", "100.0004GB/s"], rows
PY

# A sim sweep on generated traces: collective algorithm x bandwidth.
"$SNR" et generate --pattern allreduce --npus 4 --layers 2 --size 4MiB -o "$WORK/ar" >/dev/null
cat >"$WORK/sim.yaml" <<YAML
kind: sim
base:
  workload: ar
  system: {scheduling-policy: FIFO, endpoint-delay: 10, active-chunks-per-dimension: 1,
           preferred-dataset-splits: 4, all-reduce-implementation: [ring], all-gather-implementation: [ring],
           reduce-scatter-implementation: [ring], all-to-all-implementation: [ring],
           collective-optimization: baseline, local-mem-bw: 1600}
  network: {topology: [Ring], npus_count: [4], bandwidth: [50], latency: [500]}
grid:
  system.all-reduce-implementation: [[ring], [direct], [halvingDoubling]]
  network.bandwidth: [25, 50, 100]
YAML
"$SNR" sweep "$WORK/sim.yaml" -o "$WORK/sim.sqlite" --json >"$WORK/sim.json"
python3 - "$WORK/sim.json" "$WORK/sim.sqlite" <<'PY'
import json, sqlite3, sys
s = json.load(open(sys.argv[1]))
assert (s["points"], s["ok"], s["failed"]) == (9, 9, 0), s
assert s["best"]["objective"] == "finish_ns"
rows = sqlite3.connect(sys.argv[2]).execute(
    'select "system.all-reduce-implementation", "network.bandwidth", finish_ns, bytes_sent, npus from points').fetchall()
finish = {(algo, bw): t for algo, bw, t, sent, npus in rows}
assert all(npus == 4 and sent > 0 for _, _, _, sent, npus in rows), rows
# Only collectives: communication the whole time on every NPU, no overlap.
for t, comm, exposed, overlap in sqlite3.connect(sys.argv[2]).execute(
        'select finish_ns, communication_ns_max, exposed_communication_ns_max, overlap_ns_min from points'):
    assert comm == exposed == t and overlap == 0, (t, comm, exposed, overlap)
for algo in ("[ring]", "[direct]", "[halvingDoubling]"):
    assert finish[algo, 100] < finish[algo, 25], (algo, finish)
PY
"$SNR" sweep report "$WORK/sim.sqlite" -o "$WORK/sim-report" >/dev/null
[[ -s "$WORK/sim-report/index.html" ]] || fail "no sim report"
# The backend varies like any other key (it used to be refused as the name
# of a results column); backend_name says which ran.
sed -e '/^grid:/,$d' "$WORK/sim.yaml" >"$WORK/backends.yaml"
printf 'grid:\n  backend: [analytical-congestion-aware, analytical-congestion-unaware]\n' >>"$WORK/backends.yaml"
"$SNR" sweep "$WORK/backends.yaml" -o "$WORK/backends.sqlite" --json >"$WORK/backends.json"
python3 - "$WORK/backends.json" "$WORK/backends.sqlite" <<'PY'
import json, sqlite3, sys
s = json.load(open(sys.argv[1]))
assert (s["points"], s["ok"]) == (2, 2), s
rows = sqlite3.connect(sys.argv[2]).execute("select backend, backend_name from points").fetchall()
assert sorted(rows) == [("analytical-congestion-aware",) * 2, ("analytical-congestion-unaware",) * 2], rows
PY
bad_sim() {
  { sed -e '/^grid:/,$d' "$WORK/sim.yaml"; printf 'grid:\n  %s\n' "$1"; } >"$WORK/bad.yaml"
  expect_fail "$SNR" sweep "$WORK/bad.yaml" -o "$WORK/bad.sqlite"
  expect_contains "$WORK/expect_fail.out" "$2"
}
bad_sim "backend: [analytical-congestion-aware, warp-drive]" "key 'backend' = 'warp-drive'"

# The examples run as documented.
for grid in hbm-parallelism generated-device sim-collectives random-pathfind; do
  "$SNR" sweep "$EX/sweep/$grid.yaml" -o "$WORK/ex-$grid.sqlite" --json >"$WORK/ex-$grid.json"
  python3 - "$WORK/ex-$grid.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["ok"] > 0 and s["ok"] + s["failed"] == s["points"] and s["best"], s
PY
done
"$SNR" sweep kinds >"$WORK/kinds.txt"
expect_contains "$WORK/kinds.txt" "device[.<field>]"
expect_contains "$WORK/kinds.txt" "system[.<field>]"

# MPI: the same table from 2 and 4 ranks as from this process (the runs
# above already checked snr's own code for leaks).
mpi_or_skip
{ pathfind_base; cat <<YAML; } >"$WORK/mpi.yaml"
grid:
  parallelism: ["tp=8,pp=8,sp,recompute=selective", "tp=4,pp=16,sp,recompute=selective", "tp=5,pp=8"]
random:
  samples: 100
  seed: 5
  keys:
    device.hbm.bandwidth: {log-uniform: [1TB/s, 8TB/s]}
    device.hbm.capacity: {uniform: [40GiB, 120GiB]}
YAML
"$SNR" sweep "$WORK/mpi.yaml" -o "$WORK/local.sqlite" >/dev/null
"$SNR" sweep export "$WORK/local.sqlite" -o "$WORK/local.csv"
for ranks in 2 4; do
  mpirun --oversubscribe -np "$ranks" "$SNR" sweep "$WORK/mpi.yaml" -o "$WORK/mpi$ranks.sqlite" --json \
    >"$WORK/mpi$ranks.json"
  "$SNR" sweep export "$WORK/mpi$ranks.sqlite" -o "$WORK/mpi$ranks.csv"
  python3 - "$WORK/local.csv" "$WORK/mpi$ranks.csv" "$WORK/mpi$ranks.json" "$ranks" <<'PY'
import csv, json, sys
def table(path):
    rows = list(csv.DictReader(open(path, newline="")))
    for r in rows:
        del r["seconds"]  # wall time of each point, the one column that differs
    return sorted(tuple(sorted(r.items())) for r in rows)
local, mpi = table(sys.argv[1]), table(sys.argv[2])
assert len(local) == 300, len(local)
assert local == mpi, "the MPI run's table differs from the local one"
s = json.load(open(sys.argv[3]))
assert s["ranks"] == int(sys.argv[4]) and s["mpi"] is True and s["run"] == 300, s
PY
done

# A graceful stop of an MPI sweep: mpirun forwards SIGUSR1 to every rank
# (it ends the job at once on Ctrl-C); rank 0 commits and says what remains,
# and the next run computes only that.
mpirun --oversubscribe -np 2 "$SNR" sweep "$WORK/big.yaml" -o "$WORK/mpibig.sqlite" --json >"$WORK/mpibig1.json" &
launcher=$!
wait_for_points "$WORK/mpibig.sqlite"
kill -USR1 "$launcher"
status=0
wait "$launcher" || status=$?
((status != 0)) || fail "a stopped MPI sweep exited 0: $(cat "$WORK/mpibig1.json")"
mpirun --oversubscribe -np 2 "$SNR" sweep "$WORK/big.yaml" -o "$WORK/mpibig.sqlite" --json >"$WORK/mpibig2.json"
python3 - "$WORK/mpibig1.json" "$WORK/mpibig2.json" <<'PY'
import json, sys
first, second = (json.load(open(f)) for f in sys.argv[1:])
assert first["interrupted"] and first["remaining"] > 0 and first["run"] + first["remaining"] == first["points"], first
assert second["skipped"] == first["run"] and second["run"] == first["remaining"], (first, second)
PY
