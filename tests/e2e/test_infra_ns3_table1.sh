#!/usr/bin/env bash
# Seed 003 Table 1 on the ns-3 backend from one InfraGraph description
# (examples/infragraph/clos-8gpu-allreduce/run.sh): every metric the model
# reproduces must be within 10% of the paper's; the one it does not (the
# maximum FCT, see docs/infragraph.md) must stay the standalone FCT, so a
# change in it is noticed.
source "$(dirname "$0")/lib.sh"
if ! "$SNR" version --json | grep -q '"ns3"'; then echo "SKIP: snr built without ns-3"; exit 77; fi
SNR="$SNR" bash "$SRC/examples/infragraph/clos-8gpu-allreduce/run.sh" "$WORK/out" > "$WORK/table1.txt"
cat "$WORK/table1.txt"
python3 - "$WORK/table1.txt" <<'PY'
import sys
got = dict(line.split() for line in open(sys.argv[1]))
paper = {"completion_us": 165.98, "busbw_gbps": 88.45, "fct_min_ns": 11250, "fct_avg_ns": 11477,
         "fct_standalone_ns": 11857}
bad = []
for key, want in paper.items():
    value = float(got[key])
    if abs(value - want) > 0.10 * want:
        bad.append(f"{key} = {value}, paper {want} (more than 10% off)")
if int(got["drops"]) != 0:
    bad.append(f"drops = {got['drops']}, paper 0")
# The ring's messages share no link here, so every one takes its path's
# standalone time; the paper's 14,552 ns maximum is not reproduced.
if got["fct_max_ns"] != got["fct_standalone_ns"]:
    bad.append(f"fct_max_ns = {got['fct_max_ns']} differs from fct_standalone_ns = {got['fct_standalone_ns']}")
if bad:
    sys.exit("FAIL: " + "; ".join(bad))
print("table 1 ok")
PY
