#!/usr/bin/env bash
# CPU time and peak memory of `snr et link` and `snr et convert` on one host +
# Kineto trace pair (docs/benchmarks.md, "snr et link"):
#   bench/link/run.sh [SNR] HOST.json[.gz] KINETO.json[.gz] [WORK_DIR]
# Prints, per step: wall and user + sys CPU seconds, peak RSS, records (host
# nodes + Kineto traceEvents) per wall second and per CPU second, and peak
# RSS over the inflated inputs. Both steps read on up to two threads where
# the machine has two cores (per wall second is then what a user waits for,
# per CPU second the work done), so run it on an otherwise idle machine.
# SNR_BENCH_RUNS=N runs each step N times (default 1) and prints the
# minimum, median and maximum wall time with the mean CPU time and the
# largest peak: single runs of the same binary on a shared virtual machine
# differ by 50% and more, so compare builds by alternating several runs.
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
  local name=$1 records=$2 bytes=$3 runs=${SNR_BENCH_RUNS:-1}
  shift 3
  rm -f "$work/time.txt"
  for ((run = 0; run < runs; run++)); do
    /usr/bin/time -a -f "%e %U %S %M" -o "$work/time.txt" "$@" > "$work/$name.out"
  done
  sort -n "$work/time.txt" | awk -v n="$name" -v r="$records" -v b="$bytes" '
    { wall[NR] = $1; user += $2; sys += $3; if ($4 > kb) kb = $4 }
    END {
      median = NR % 2 ? wall[(NR + 1) / 2] : (wall[NR / 2] + wall[NR / 2 + 1]) / 2
      user /= NR; sys /= NR; cpu = user + sys
      if (NR == 1) printf "%-8s wall %.2f s", n, median
      else printf "%-8s wall %.2f / %.2f / %.2f s (min / median / max of %d)", n, wall[1], median, wall[NR], NR
      # time(1) counts in hundredths: a step shorter than that has no rate.
      rate_wall = median > 0 ? sprintf("%.0f k", r / median / 1000) : "-"
      rate_cpu = cpu > 0 ? sprintf("%.0f k", r / cpu / 1000) : "-"
      printf "  CPU %.2f s (%.2f + %.2f)  peak RSS %.0f MiB  %s records/s (wall)  %s records/s (CPU)  peak/input %.2f\n",
             cpu, user, sys, kb / 1024, rate_wall, rate_cpu, kb * 1024 / b }'
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
