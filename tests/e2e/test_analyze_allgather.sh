#!/usr/bin/env bash
# `snr analyze` on the all-gather case study (seed 000 §5.2.1): the chained
# setup phase is recorded, replayed and analyzed; the report, the tables and
# the timeline exist, the setup phase's stall is mostly base latency, the
# three dependency chains are found, issuing their heads in parallel is
# suggested and verified, with a predicted saving within 25% of the
# verified one; compiling with pinned peer addresses shortens the
# collective.
source "$(dirname "$0")/lib.sh"

record_and_replay() {  # NAME COMPILE-ARGS... : $WORK/NAME/{model,window.snr,run.db}
  local name="$1"
  shift
  mkdir -p "$WORK/$name"
  "$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/$name/model" "$@" >/dev/null
  start_device 120 "$WORK/$name/model"
  timeout 300 "$SNR" record --target "127.0.0.1:$port" --model "$WORK/$name/model" --count 100000 --chips all \
    --quiet -o "$WORK/$name/window.snr" >"$WORK/record.out" 2>&1 || { cat "$WORK/record.out" >&2; fail "record $name"; }
  wait "$server"
  "$SNR" replay "$WORK/$name/window.snr" -o "$WORK/$name/run.db" --quiet
}

record_and_replay chained
# The snapshot is found through run.db's meta source (beside run.db).
"$SNR" analyze "$WORK/chained/run.db" -o "$WORK/chained/report" --verify-top 3 >"$WORK/analyze.out" 2>"$WORK/analyze.err" ||
  { cat "$WORK/analyze.err" >&2; fail "snr analyze failed"; }
cat "$WORK/analyze.out"
for f in index.html timeline.json; do [[ -s "$WORK/chained/report/$f" ]] || fail "report/$f missing"; done
ls "$WORK/chained/report/tables/"*.csv >/dev/null 2>&1 || fail "no CSV tables"
ls "$WORK/chained/report/tables/"*.json >/dev/null 2>&1 || fail "no JSON tables"
expect_contains "$WORK/analyze.out" "report: $WORK/chained/report/index.html"
expect_contains "$WORK/analyze.out" "dependent DMA chains: "
expect_contains "$WORK/chained/report/index.html" "parallel chain heads"
grep -q "suggestions not verified" "$WORK/analyze.out" && fail "suggestions were not verified"
# Predicted and verified savings agree within 25%; verified ones rank first, by verified saving.
python3 "$SRC/tests/e2e/check_suggestions.py" "$WORK/chained/report/tables" 1 || fail "predicted vs verified savings"

python3 - "$WORK/chained/report/index.html" "$WORK/analyze.out" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
out = open(sys.argv[2]).read()
# Most of the setup phase's stall is base latency (Figure 5).
m = re.search(r"all_gather\S*\s+([\d,]+) cycles \(([\d.]+)% base latency\)", out)
assert m, "no all_gather stall line:\n" + out
assert float(m.group(2)) > 50, f"setup stall is only {m.group(2)}% base latency"
# Three chains (one per peer), found without being told.
chains = int(re.search(r"dependent DMA chains: (\d+)", out).group(1))
assert chains >= 3, f"{chains} chains"
# The parallel-heads suggestion was verified as legal and saves cycles.
rows = re.findall(r"<tr><td>\d+</td><td class=t>parallel chain heads</td>.*?</tr>", html)
assert rows, "no parallel chain heads suggestion"
# Verified: legal, faster, and the chains' stalls cut by about the number
# of chains (three), at least by half.
cut = []
for r in rows:
    v = re.search(r'class="good">\d+ cycles</span> \(.*?; target stalls ([\d,]+) → ([\d,]+);', r)
    if v:
        before, after = (int(x.replace(",", "")) for x in v.groups())
        cut.append(before / max(after, 1))
assert cut, "parallel chain heads not verified as faster:\n" + rows[0]
assert max(cut) >= 2, f"chain stalls cut only {max(cut):.2f}x"
print(f"parallel chain heads: chain stalls cut {max(cut):.2f}x")
PY

# A run replayed on other hardware (--hw) is verified on that hardware: the
# rewritten window's cycles are those of replaying the rewritten snapshot
# with the same --hw (verification used to replay it on the recorded
# tpu-v4-like config and subtract that from the tpu-v5e-like baseline).
"$SNR" replay "$WORK/chained/window.snr" -o "$WORK/chained/v5e.db" --hw tpu-v5e-like --quiet
"$SNR" analyze "$WORK/chained/v5e.db" -o "$WORK/chained/v5e_report" --snapshot "$WORK/chained/window.snr" \
  --verify-top 1 >/dev/null 2>"$WORK/v5e.err" || { cat "$WORK/v5e.err" >&2; fail "analyze of the tpu-v5e-like run"; }
python3 - "$WORK/chained/v5e_report/tables/suggestions.json" "$WORK/v5e_moves.json" "$WORK/v5e_verified" <<'PY'
import json, sys
s = [x for x in json.load(open(sys.argv[1])) if x["verification_legal"]][0]
json.dump({"moves": [{"pcs": m["pcs"], "before_pc": m["before_pc"]} for m in s["moves"]]}, open(sys.argv[2], "w"))
open(sys.argv[3], "w").write(f'{s["baseline_cycles"]} {s["rewritten_cycles"]}\n')
PY
"$SNR" rewrite "$WORK/chained/window.snr" --moves "$WORK/v5e_moves.json" -o "$WORK/chained/v5e_rewritten.snr" >/dev/null
"$SNR" replay "$WORK/chained/v5e_rewritten.snr" -o "$WORK/chained/v5e_rewritten.db" --hw tpu-v5e-like --quiet
read -r v5e_baseline v5e_rewritten <"$WORK/v5e_verified"
q_total() { sqlite3 -batch -noheader "$1" "SELECT value FROM meta WHERE key = 'total_cycles'"; }
[[ "$v5e_baseline" == "$(q_total "$WORK/chained/v5e.db")" ]] || fail "tpu-v5e-like baseline $v5e_baseline"
[[ "$v5e_rewritten" == "$(q_total "$WORK/chained/v5e_rewritten.db")" ]] ||
  fail "verified on other hardware: rewritten $v5e_rewritten, replayed $(q_total "$WORK/chained/v5e_rewritten.db")"

record_and_replay pinned --set schedule.allgather_setup=pinned
"$SNR" analyze "$WORK/pinned/run.db" -o "$WORK/pinned/report" --no-verify >"$WORK/pinned.out" 2>/dev/null
expect_contains "$WORK/pinned.out" "report: $WORK/pinned/report/index.html"
# Verifying against a snapshot the run was not replayed from is an error.
expect_fail "$SNR" analyze "$WORK/chained/run.db" -o "$WORK/wrong" --snapshot "$WORK/pinned/window.snr"
expect_contains "$WORK/expect_fail.out" "is not the one"
# The collective (every all_gather op) is shorter with pinned addresses.
span() {
  sqlite3 -batch -noheader "$1" \
    "SELECT MAX(complete_cycle) - MIN(issue_cycle) FROM instructions WHERE op LIKE 'all_gather%'"
}
chained=$(span "$WORK/chained/run.db")
pinned=$(span "$WORK/pinned/run.db")
echo "all-gather: chained $chained cycles, pinned $pinned cycles"
[[ -n "$chained" && -n "$pinned" ]] && ((pinned < chained)) || fail "pinned ($pinned) not shorter than chained ($chained)"
echo "analyze all-gather ok"
