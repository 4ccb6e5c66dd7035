# snr et link: right or says it is not. Public pairs from ../shared/data and
# pairs constructed from them (shifted External ids, ids stripped, another
# run's Kineto trace, renamed ops). Expected numbers were read off the inputs
# with python; comments say how.
source "$(dirname "$0")/lib.sh"
if [[ ! -d "$DATA/pytorch" ]]; then
  echo "SKIP: shared data (../shared/data/pytorch) not present"
  exit 77
fi
HTA_ET="$DATA/pytorch/hta/benchmark_simple_add_et.json.gz"
HTA_KINETO="$DATA/pytorch/hta/benchmark_simple_add_trace.json.gz"
PARAM_ET="$DATA/pytorch/param/linear_et.json.gz"
PARAM_KINETO="$DATA/pytorch/param/linear_kineto.json.gz"

# rewrite_kineto IN OUT PYTHON-EXPRESSION-ON-event: edits every traceEvent.
rewrite_kineto() {
  python3 - "$1" "$2" "$3" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]))
code = compile(sys.argv[3], "rewrite", "exec")
for index, event in enumerate(doc["traceEvents"]):
    exec(code, {"event": event, "index": index})
json.dump(doc, open(sys.argv[2], "w"))
PY
}

# --- HTA simple_add: External id = rf_id (offset +0), 36 ops ----------------------
"$SNR" et link --host "$HTA_ET" --device "$HTA_KINETO" -o "$WORK/hta.json" >"$WORK/link.out"
expect_contains "$WORK/link.out" "verdict: high (100.0% of host ops and markers linked; rank 0 from the Kineto distributedInfo)"
expect_contains "$WORK/link.out" "host ops: 36 = 36 matched + 0 unmatched whose name Kineto has + 0 unmatched absent"
expect_contains "$WORK/link.out" "host thread 1: External id = rf_id +0 (36 ops)"
expect_contains "$WORK/link.out" "gpu activities: 4 = 4 linked"
# 5 cudaDeviceSynchronize calls; the last (ts ...808307970) is after every CPU op.
expect_contains "$WORK/link.out" "sync calls: 5 = 4 linked + 1 outside matched ops"
python3 - "$WORK/hta.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["snr_linked"]
assert s["confidence"] == "high" and s["problems"] == [], s
assert s["host_ops_matched"] + s["host_ops_unmatched_name_differs"] + s["host_ops_unmatched_absent"] == s["host_ops"]
PY

# --- the same Kineto trace with every External id shifted by +1 -------------------
rewrite_kineto "$HTA_KINETO" "$WORK/shifted.json" \
  'a = event.get("args", {})
if "External id" in a: a["External id"] += 1'
"$SNR" et link --host "$HTA_ET" --device "$WORK/shifted.json" -o "$WORK/shifted_linked.json" >"$WORK/link.out"
expect_contains "$WORK/link.out" "host thread 1: External id = rf_id +1 (36 ops)"
expect_contains "$WORK/link.out" "verdict: high"
# Shifted or not, the linked nodes are the same.
python3 - "$WORK/hta.json" "$WORK/shifted_linked.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["nodes"] for p in sys.argv[1:])
assert a == b, "shifted External ids changed the linked nodes"
PY

# --- no External ids at all: the op-name sequences align --------------------------
rewrite_kineto "$HTA_KINETO" "$WORK/noids.json" \
  'event.get("args", {}).pop("External id", None)'
"$SNR" et link --host "$HTA_ET" --device "$WORK/noids.json" -o "$WORK/noids_linked.json" >"$WORK/link.out"
expect_contains "$WORK/link.out" "36 op_sequence"
expect_contains "$WORK/link.out" "host ops: 36 = 36 matched"

# --- another run's Kineto trace: refused with the reasons, nothing written --------
# HTA ET: pid 563677, recorded 2023-07-14 11:53:07; PARAM Kineto: pid 24248,
# events on 2023-07-12 16:47:27..29 UTC.
expect_fail "$SNR" et link --host "$HTA_ET" --device "$PARAM_KINETO" -o "$WORK/wrong.json"
expect_contains "$WORK/expect_fail.out" "do not look like one run of one rank"
expect_contains "$WORK/expect_fail.out" "pid mismatch: the host trace is process 563677, the Kineto trace's CPU events are process(es) 24248"
expect_contains "$WORK/expect_fail.out" "time mismatch: the host trace was recorded at 2023-07-14 11:53:07 (local time), the Kineto events span 2023-07-12 16:47:27 UTC"
expect_contains "$WORK/expect_fail.out" "name mismatch"
[[ ! -e "$WORK/wrong.json" ]] || fail "a refused link left an output file"
expect_fail "$SNR" et link --host "$PARAM_ET" --device "$HTA_KINETO" -o "$WORK/wrong.json"
expect_contains "$WORK/expect_fail.out" "pid mismatch: the host trace is process 24248"
# --force writes it, marked as refused.
"$SNR" et link --host "$HTA_ET" --device "$PARAM_KINETO" -o "$WORK/forced.json" --force >"$WORK/link.out" 2>"$WORK/link.err"
expect_contains "$WORK/link.err" "writing despite --force"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["snr_linked"]["confidence"] == "refused"' "$WORK/forced.json"
# --min-linked (GPU activities) still applies under --force.
expect_fail "$SNR" et link --host "$HTA_ET" --device "$PARAM_KINETO" -o "$WORK/forced2.json" --force --min-linked 0.5
expect_contains "$WORK/expect_fail.out" "below --min-linked 0.5"

# --- same process and time, other ops: a name mismatch ----------------------------
# Every CPU op renamed: no host op finds its Kineto op.
rewrite_kineto "$HTA_KINETO" "$WORK/renamed.json" \
  'if event.get("cat") in ("cpu_op", "user_annotation"): event["name"] = "other::" + event["name"]'
expect_fail "$SNR" et link --host "$HTA_ET" --device "$WORK/renamed.json" -o "$WORK/renamed_linked.json"
expect_contains "$WORK/expect_fail.out" "name mismatch: 0 of 36 host ops and markers (0.0%) found a Kineto op of the same name (threshold 50.0%)"
# The threshold is the user's: --min-matched 0 accepts it (as partial, 0 linked).
"$SNR" et link --host "$HTA_ET" --device "$WORK/renamed.json" -o "$WORK/renamed_linked.json" --min-matched 0 >"$WORK/link.out" 2>/dev/null
expect_contains "$WORK/link.out" "verdict: partial (0.0%"

# --- another rank of the same job: refused -----------------------------------------
rewrite_kineto "$HTA_KINETO" "$WORK/rank1.json" 'pass'
python3 - "$WORK/rank1.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1])); doc["distributedInfo"]["rank"] = 1
json.dump(doc, open(sys.argv[1], "w"))
PY
python3 - "$HTA_ET" "$WORK/hta_rank0.json" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1])); doc["rank"] = 0
json.dump(doc, open(sys.argv[2], "w"))
PY
expect_fail "$SNR" et link --host "$WORK/hta_rank0.json" --device "$WORK/rank1.json" -o "$WORK/r.json"
expect_contains "$WORK/expect_fail.out" "rank mismatch: the host trace is rank 0, the Kineto trace rank 1"

echo "et link ok"
