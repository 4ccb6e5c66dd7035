#!/usr/bin/env bash
# Old-versus-new identity check of the load-store GPU model over the NoC
# network: runs two `snr` binaries on the same `snr collective ... --json`
# runs and compares exit status, stderr and every key of the JSON but the
# wall-clock one (simulation.wall_s). A few runs also write --trace and
# --csv, compared byte for byte.
#
# simulation.events (the events the simulator took) is the simulator's
# cost, not a result: a change that takes fewer events per hop changes it.
# It is printed as a count of runs where it changed, and compared like
# every other key with SNR_COMPARE_EVENTS=1.
#
# Runs: every MSCCL++ plan (*.json) in ../shared/data/mscclpp and every
# MSCCLang algorithm (*.xml) in ../shared/data, each with the plan's
# default and with --size 1048576, --unroll 8, --arbitration fair,
# --max-outstanding 4 (a plan a binary refuses is compared on exit status
# and stderr too); the built-in allreduce, allgather, reducescatter and
# alltoall on 4 GPUs at 64 KiB and 4 MiB; allreduce on the dgx-a100 and
# dgx-h100 systems (8 GPUs, 1 and 4 MiB); --granularity flow on a few.
#
# Usage: bench/gpu/compare_old_new.sh OLD_SNR NEW_SNR [WORK_DIR]
# SNR_SHARED_DATA overrides the data folder (default: ../shared/data beside
# the checkout). Prints one line per difference and a summary; exits 1 on
# any difference.
set -uo pipefail
OLD="$(realpath "${1:?old snr binary}")"
NEW="$(realpath "${2:?new snr binary}")"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
DATA="${SNR_SHARED_DATA:-$ROOT/../shared/data}"
WORK="${3:-$(mktemp -d)}"
mkdir -p "$WORK"
[[ -d "$DATA/mscclpp" ]] || { echo "missing $DATA/mscclpp"; exit 2; }
STRICT_EVENTS="${SNR_COMPARE_EVENTS:-0}"

runs=0
diffs=0
refused=0
events_changed=0

# The JSON with the keys that are not compared taken out, keys sorted.
normalize() {  # file
  python3 - "$1" "$STRICT_EVENTS" <<'PY'
import json, sys
path, strict = sys.argv[1], sys.argv[2] == "1"
try:
    with open(path) as f:
        text = f.read()
    if not text.strip():
        print("(empty)")
        sys.exit(0)
    doc = json.loads(text)
except ValueError:
    print(open(path).read())
    sys.exit(0)
sim = doc.get("simulation") if isinstance(doc, dict) else None
if isinstance(sim, dict):
    sim.pop("wall_s", None)
    if not strict:
        sim.pop("events", None)
print(json.dumps(doc, indent=1, sort_keys=True))
PY
}

events_of() {  # file
  python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1]))["simulation"]["events"])
except Exception: print("-")' "$1"
}

# compare NAME ARGS... : `snr collective ARGS --json` with both binaries.
# With FILES=1 in the environment, also --trace and --csv.
compare() {
  local name="$1"; shift
  local d="$WORK/run"
  rm -rf "$d"; mkdir -p "$d/old" "$d/new"
  local side bin extra
  for side in old new; do
    bin="$OLD"; [[ "$side" == new ]] && bin="$NEW"
    extra=()
    # Relative output names: the JSON quotes the trace's path.
    [[ "${FILES:-0}" == 1 ]] && extra=(--trace trace.json --csv kernels.csv)
    (cd "$d/$side" && "$bin" collective "$@" "${extra[@]}" --json > stdout 2> stderr; echo $? > rc)
    normalize "$d/$side/stdout" > "$d/$side/result"
    mv "$d/$side/stdout" "$d/$side.full"
  done
  runs=$((runs + 1))
  [[ "$(cat "$d/old/rc")" != 0 ]] && refused=$((refused + 1))
  if ! diff -r -q "$d/old" "$d/new" > "$d/diff" 2>&1; then
    diffs=$((diffs + 1))
    echo "DIFF $name: $(tr '\n' ' ' < "$d/diff" | sed "s|$d/||g" | cut -c1-300)"
    diff "$d/old/result" "$d/new/result" | head -8 | sed 's/^/    /'
  fi
  if [[ "$STRICT_EVENTS" != 1 ]]; then
    local eo en
    eo="$(events_of "$d/old.full")"; en="$(events_of "$d/new.full")"
    [[ "$eo" != "$en" ]] && events_changed=$((events_changed + 1))
    echo "$name: events $eo -> $en" >> "$WORK/events.txt"
  fi
}

: > "$WORK/events.txt"
mapfile -t PLANS < <(find "$DATA/mscclpp" -name '*.json' | sort; find "$DATA" -name '*.xml' | sort)
for plan in "${PLANS[@]}"; do
  short="${plan#"$DATA"/}"
  compare "$short" "$plan"
  compare "$short size" "$plan" --size 1048576
  compare "$short unroll" "$plan" --size 1048576 --unroll 8
  compare "$short fair" "$plan" --size 1048576 --arbitration fair
  compare "$short outstanding" "$plan" --size 1048576 --max-outstanding 4
done
for coll in allreduce allgather reducescatter alltoall; do
  for size in 65536 4194304; do
    compare "$coll $size" "$coll" --gpus 4 --size "$size"
  done
done
compare "dgx-a100 allreduce" allreduce --system dgx-a100 --gpus 8 --size 1048576
compare "dgx-h100 allreduce" allreduce --system dgx-h100 --gpus 8 --size 4194304
compare "allgather 32 workgroups" allgather --gpus 4 --workgroups 32 --size 262144
compare "allreduce yx control_first" allreduce --gpus 2 --size 1048576 --routing yx --arbitration control_first
FILES=1 compare "allreduce trace" allreduce --gpus 4 --size 65536
FILES=1 compare "alltoall trace fair" alltoall --gpus 4 --size 262144 --arbitration fair
compare "allgather flow" allgather --gpus 4 --size 4194304 --granularity flow
compare "alltoall flow" alltoall --gpus 4 --size 4194304 --granularity flow
compare "allreduce.json flow" "$DATA/mscclpp/allreduce.json" --size 1048576 --granularity flow
FILES=1 compare "reducescatter flow trace" reducescatter --gpus 4 --size 1048576 --granularity flow

events_note="simulation.events compared"
[[ "$STRICT_EVENTS" != 1 ]] && events_note="simulation.events changed in $events_changed (not compared; see $WORK/events.txt)"
echo "compared $runs runs (each with both binaries): $diffs differ; $refused exited non-zero with the old binary; $events_note"
[[ "$diffs" == 0 ]]
