#!/usr/bin/env bash
# snr pathfind search through the CLI: the --json contract (best design,
# strategies, trajectory, Pareto set, evaluation counts), the -o files and
# that the written budget and device reproduce the best time through
# `pathfind predict`, budgets kept exactly, gd against 10,000 random designs,
# the parallelism search, determinism for a seed (and across MPI ranks when
# this snr has MPI), and errors that name the key.
source "$(dirname "$0")/lib.sh"
EX="$SRC/examples/pathfind"
GEN=(--tech n7 --arch gpu-16x16 --budget a100-like)

# One strategy, the defaults (T=100, S=10), with files.
"$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism RC-2-4-d1-p1 --json >"$WORK/gd.json"
"$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism RC-2-4-d1-p1 -o "$WORK/out" >"$WORK/gd.txt"
for f in search.json best_budget.yaml best_device.yaml; do
  [[ -s "$WORK/out/$f" ]] || fail "-o did not write $f"
done
expect_contains "$WORK/gd.txt" "where the budget went"
expect_contains "$WORK/gd.txt" "best: RC-2-4-d1-p1 gemm"
python3 - "$WORK/gd.json" "$WORK/out/search.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert json.load(open(sys.argv[2])) == j, "search.json differs from --json"
for key in ("engine", "config", "seed", "workload", "devices", "tasks", "parameters", "evaluations", "strategies",
            "best", "trajectory", "pareto"):
    assert key in j, key
assert j["engine"] == "gd" and j["config"]["steps"] == 100 and j["config"]["starts"] == 10, j["config"]
assert j["devices"] == 8 and j["tasks"] == 10
assert len(j["parameters"]) == 17 and j["parameters"][0] == "area.core", j["parameters"]
e = j["evaluations"]
assert e["total"] == e["feasible"] + e["refused_by_generator"] + e["refused_by_model"] + e["out_of_memory"], e
b = j["best"]
for key in ("parallelism", "time_s", "time_name", "ordering", "bottleneck", "baseline_time_s", "speedup",
            "power_used_w", "area_used_mm2", "w", "budget", "peak_flops_per_s", "components", "prediction"):
    assert key in b, key
assert b["time_s"] < b["baseline_time_s"], (b["time_s"], b["baseline_time_s"])
assert b["prediction"]["time_s"] == b["time_s"]
assert b["power_used_w"] <= b["budget"]["tdp_w"] * (1 + 1e-12)
# Every design returned keeps every budget: fractions >= 0, each class <= 1.
blocks = [(0, 7), (7, 14), (14, 17)]
def check(w, what):
    assert len(w) == 17, what
    for lo, hi in blocks:
        s = 0.0
        for v in w[lo:hi]:
            assert v >= 0, what
            s += v
        assert s <= 1.0, (what, s)
check(b["w"], "best")
for p in j["trajectory"]:
    check(p["w"], "trajectory")
for p in j["pareto"]:
    check(p["w"], "pareto")
for section in ("area", "power", "perimeter"):
    assert sum(b["budget"][section].values()) <= 1.0, section
assert j["trajectory"][0]["step"] == 0 and len(j["pareto"]) >= 2
times = [p["time_s"] for p in j["pareto"]]
assert times == sorted(times)
PY

# The written budget and device give the same time through predict.
"$SNR" pathfind predict "${GEN[@]/a100-like/$WORK/out/best_budget.yaml}" --model "$EX/gemm-8k.yaml" \
  --parallelism RC-2-4-d1-p1 --json >"$WORK/p_budget.json"
"$SNR" pathfind predict --hw "$WORK/out/best_device.yaml" --model "$EX/gemm-8k.yaml" \
  --parallelism RC-2-4-d1-p1 --json >"$WORK/p_device.json"
python3 - "$WORK/gd.json" "$WORK/p_budget.json" "$WORK/p_device.json" <<'PY'
import json, sys
best = json.load(open(sys.argv[1]))["best"]["time_s"]
from_budget = json.load(open(sys.argv[2]))["time_s"]
assert from_budget == best, (from_budget, best)
# A device file has no template: both tiers become switches, so only close.
from_device = json.load(open(sys.argv[3]))["time_s"]
assert abs(from_device / best - 1) < 0.05, (from_device, best)
PY

# gd against the best of 10,000 feasible uniform random designs (about
# half of the draws are feasible).
"$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism RC-2-4-d1-p1 --strategy random \
  --samples 22000 --json >"$WORK/random.json"
python3 - "$WORK/gd.json" "$WORK/random.json" <<'PY'
import json, sys
gd, rnd = (json.load(open(f)) for f in sys.argv[1:])
e = rnd["evaluations"]
assert rnd["engine"] == "random" and e["total"] == 22000 and e["feasible"] >= 10000, e
assert gd["best"]["time_s"] <= rnd["best"]["time_s"], (gd["best"]["time_s"], rnd["best"]["time_s"])
PY

# The parallelism search: every strategy of 8 devices, the best among them;
# the same seed gives the same JSON, another seed other starting points.
S=(pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism search --devices 8 --starts 2 --steps 10)
"$SNR" "${S[@]}" --json >"$WORK/all1.json"
"$SNR" "${S[@]}" --json >"$WORK/all2.json"
"$SNR" "${S[@]}" --seed 7 --json >"$WORK/all7.json"
cmp -s "$WORK/all1.json" "$WORK/all2.json" || fail "the same seed gave another result"
! cmp -s "$WORK/all1.json" "$WORK/all7.json" || fail "another seed gave the same result"
python3 - "$WORK/all1.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
names = [s["parallelism"] for s in j["strategies"]]
assert len(names) == 13 and "CR-8-d1-p1" in names and "RC-2-4-d1-p1" in names, names
assert j["tasks"] == 26
best = j["best"]["time_s"]
assert all(s["feasible"] and s["time_s"] >= best for s in j["strategies"])
assert j["best"]["parallelism"] in names
PY
"$SNR" pathfind search --list-strategies >"$WORK/list.txt"
expect_contains "$WORK/list.txt" "gd: projected gradient descent"
expect_contains "$WORK/list.txt" "samples"

# A transformer: the strategy options ride along with the search.
"$SNR" pathfind search "${GEN[@]}" --model "$EX/gpt3-175B-train.yaml" --parallelism tp=8,pp=8,sp,recompute=selective \
  --starts 1 --steps 3 --json >"$WORK/gpt.json"
python3 - "$WORK/gpt.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["best"]["time_name"] == "iteration" and j["devices"] == 64, j["best"]["time_name"]
assert j["best"]["parallelism"] == "CR-8-d1-p8 sp recompute=selective", j["best"]["parallelism"]
PY

# Errors name what is wrong.
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --strategy anneal
expect_contains "$WORK/expect_fail.out" "'anneal' is not known (known: gd, random)"
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --steps 0
expect_contains "$WORK/expect_fail.out" "steps: 0 is outside"
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --starts 20000
expect_contains "$WORK/expect_fail.out" "starts: 20000 is outside"
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --strategy random --steps 5
expect_contains "$WORK/expect_fail.out" "'random': steps: not a key"
# A few random draws end slower than the given budget, and the line says so
# (it read "0.941x faster").
"$SNR" pathfind search "${GEN[@]}" --model "$EX/llama-7b-decode.yaml" --parallelism tp=8 --strategy random \
  --samples 30 >"$WORK/random_slow.txt"
expect_contains "$WORK/random_slow.txt" "x slower than it)"
# The bound on a search's designs is refused past its default and can be
# raised deliberately (a search spread over many ranks).
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --strategy random \
  --samples 20000000
expect_contains "$WORK/expect_fail.out" "more than the 10000000 one search may take"
expect_contains "$WORK/expect_fail.out" "raise the bound (--max-designs)"
"$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --strategy random \
  --samples 30 --starts 3 --max-designs 30 --json >"$WORK/bounded.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["evaluations"]["total"] == 30, j["evaluations"]' \
  "$WORK/bounded.json"
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --strategy random \
  --samples 30 --starts 3 --max-designs 29
expect_contains "$WORK/expect_fail.out" "more than the 29 one search may take"
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --set momentum=0.9
expect_contains "$WORK/expect_fail.out" "momentum: not a key"
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism search
expect_contains "$WORK/expect_fail.out" "--parallelism: parallelism 'search' needs the number of devices"
expect_fail "$SNR" pathfind search "${GEN[@]}" --model "$EX/gemm-8k.yaml" --parallelism CR-8-d1-p1 --devices 4
expect_contains "$WORK/expect_fail.out" "uses 8 devices but the system has 4"

# No feasible design: exit 3, best null, the reason counted.
sed 's/gemm: {m: 8192, n: 8192, k: 8192}/gemm: {m: 1048576, n: 1048576, k: 1048576}/' "$EX/gemm-8k.yaml" >"$WORK/huge.yaml"
status=0
"$SNR" pathfind search "${GEN[@]}" --model "$WORK/huge.yaml" --parallelism d8-p1 --starts 1 --steps 2 --json \
  >"$WORK/huge.json" || status=$?
((status == 3)) || fail "no feasible design should exit 3, got $status"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["best"] is None and j["evaluations"]["out_of_memory"] > 0, j["evaluations"]' "$WORK/huge.json"

# MPI: the same JSON from 2 and 3 ranks as from this process.
mpi_or_skip
for ranks in 2 3; do
  mpirun --oversubscribe -np "$ranks" "$SNR" "${S[@]}" --json >"$WORK/mpi$ranks.json"
  cmp -s "$WORK/all1.json" "$WORK/mpi$ranks.json" || fail "$ranks ranks gave another result than one"
done
mpirun --oversubscribe -np 2 "$SNR" "${S[@]}" >"$WORK/mpi.txt"
expect_contains "$WORK/mpi.txt" "on 2 ranks"
[[ $(grep -c "^best:" "$WORK/mpi.txt") == 1 ]] || fail "more than rank 0 printed"
