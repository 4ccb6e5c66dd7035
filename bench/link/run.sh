#!/usr/bin/env bash
# CPU time and peak memory of `snr et link` and `snr et convert` on one host +
# Kineto trace pair (docs/benchmarks.md, "snr et link"):
#   bench/link/run.sh [SNR] HOST.json[.gz] KINETO.json[.gz] [WORK_DIR]
# Prints, per step: wall and user + sys CPU seconds, peak RSS, records (host
# nodes + Kineto traceEvents) per wall second and per CPU second, and peak
# RSS over the inflated inputs. Both steps read on up to two threads where
# the machine has two cores (per wall second is then what a user waits for,
# per CPU second the work done), so run it on an otherwise idle machine.
set -euo pipefail
snr=build/snr
if [[ $# -ge 1 && -x "$1" && ! "$1" == *.json* ]]; then snr=$1; shift; fi
if [[ $# -lt 2 ]]; then
  echo "usage: $0 [SNR] HOST.json[.gz] KINETO.json[.gz] [WORK_DIR]" >&2
  exit 2
fi
host=$1 kineto=$2 work=${3:-$(mktemp -d)}
mkdir -p "$work"

inflated_bytes() { if gzip -t "$1" 2>/dev/null; then gzip -dc "$1" | wc -c; else wc -c < "$1"; fi; }
count() {  # count FILE KEY: the length of the root list KEY
  python3 - "$1" "$2" <<'PY'
import gzip, json, sys
path, key = sys.argv[1], sys.argv[2]
opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
with opener(path, "rb") as f:
    print(len(json.load(f)[key]))
PY
}
measure() {  # measure NAME RECORDS INPUT_BYTES COMMAND...
  local name=$1 records=$2 bytes=$3
  shift 3
  /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" > "$work/$name.out"
  read -r wall user sys rss_kb < "$work/time.txt"
  awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v kb="$rss_kb" -v r="$records" -v b="$bytes" 'BEGIN {
    cpu = u + s
    printf "%-8s wall %.2f s  CPU %.2f s (%.2f + %.2f)  peak RSS %.0f MiB  %.0f k records/s (wall)  %.0f k records/s (CPU)  peak/input %.2f\n",
           n, w, cpu, u, s, kb / 1024, r / w / 1000, r / cpu / 1000, kb * 1024 / b }'
}

host_bytes=$(inflated_bytes "$host")
kineto_bytes=$(inflated_bytes "$kineto")
nodes=$(count "$host" nodes)
events=$(count "$kineto" traceEvents)
echo "inputs: $nodes host nodes ($host_bytes B of JSON), $events Kineto events ($kineto_bytes B)"
measure link $((nodes + events)) $((host_bytes + kineto_bytes)) \
  "$snr" et link --host "$host" --device "$kineto" -o "$work/linked.json"
linked_bytes=$(wc -c < "$work/linked.json")
linked_nodes=$(count "$work/linked.json" nodes)
echo "linked: $linked_nodes nodes ($linked_bytes B of JSON)"
measure convert "$linked_nodes" "$linked_bytes" "$snr" et convert "$work/linked.json" -o "$work/converted"
