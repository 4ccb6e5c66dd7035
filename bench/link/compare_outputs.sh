#!/usr/bin/env bash
# Byte-identity check of two snr builds on `snr et link` and `snr et convert`:
#   bench/link/compare_outputs.sh SNR_BEFORE SNR_AFTER WORK_DIR HOST KINETO [HOST KINETO ...]
# For each host + Kineto pair: `et link` (to linked.json), `et convert` of the
# linked trace and `et convert` of the host trace alone; then broken copies
# of the first pair's host trace and of its linked trace (cut short, a bad
# escape, invalid UTF-8, a duplicate key, 1e400, a syntax error past 4 MiB,
# trailing content) through `et convert` and `et link`. Every output file,
# stdout, stderr and exit status of the two builds must be equal; prints one
# line per case and exits 1 on any difference. The broken copies take about
# 16 times the first pair's inflated host trace on disk; outputs of equal
# cases are removed as it goes.
set -uo pipefail
if [[ $# -lt 5 || $(( ($# - 3) % 2 )) -ne 0 ]]; then
  echo "usage: $0 SNR_BEFORE SNR_AFTER WORK_DIR HOST KINETO [HOST KINETO ...]" >&2
  exit 2
fi
before=$(realpath "$1") after=$(realpath "$2") work=$3
shift 3
mkdir -p "$work"
work=$(realpath "$work")
failures=0 cases=0

# run_case NAME ARGS...: runs `snr ARGS` with each build in its own empty
# directory (outputs named relative to it, so the two runs print the same
# paths) and compares everything they leave.
run_case() {
  local name=$1
  shift
  local build dir
  for build in before after; do
    dir="$work/runs/$name/$build"
    rm -rf "$dir" && mkdir -p "$dir" || exit 2
    local snr=$before
    [[ $build == after ]] && snr=$after
    (cd "$dir" || exit 1; "$snr" "$@" > stdout.txt 2> stderr.txt; echo $? > status.txt)
  done
  cases=$((cases + 1))
  if diff -r "$work/runs/$name/before" "$work/runs/$name/after" > "$work/runs/$name.diff"; then
    echo "same       $name (exit $(cat "$work/runs/$name/before/status.txt"))"
    # The big pair's outputs are hundreds of megabytes; a link's linked.json
    # is read again below.
    [[ $name == *.link ]] || rm -rf "$work/runs/$name"
  else
    failures=$((failures + 1))
    echo "DIFFERENT  $name (see $work/runs/$name.diff)"
  fi
}

inflate() { if gzip -t "$1" 2>/dev/null; then gzip -dc "$1"; else cat "$1"; fi; }

# break_trace IN OUT_PREFIX: the broken copies of the JSON text IN.
break_trace() {
  python3 - "$1" "$2" <<'PY'
import re, sys
text = open(sys.argv[1], "rb").read()
out = sys.argv[2]
def write(kind, data):
    open(f"{out}.{kind}.json", "wb").write(data)
def first(pattern, start=0):
    m = re.compile(pattern).search(text, start)
    if m is None:
        sys.exit(f"no {pattern!r} in {sys.argv[1]}")
    return m
nodes = text.index(b'"nodes"')
write("trailing", text + b"\n{}")
write("cut", text[: len(text) // 2])
# Well inside the nodes list, past the reader's first window where it can.
middle = first(rb'"name": ?"', nodes + len(text) // 3)
write("bad_escape", text[: middle.end()] + b"\\q" + text[middle.end():])
write("bad_utf8", text[: middle.end()] + b"\xc3\x28" + text[middle.end():])
name = first(rb'"name": ?"', nodes + len(text) // 4)
write("duplicate_key", text[: name.start()] + b'"name": "again", ' + text[name.start():])
number = first(rb'"value": ?-?[0-9]+', nodes + len(text) // 5)
write("1e400", text[: number.start()] + b'"value": 1e400' + text[number.end():])
if len(text) > 4 * 1024 * 1024 + 12345:
    late = first(rb'"name": ?"', 4 * 1024 * 1024 + 12345)
    write("syntax_past_4mib", text[: late.start()] + b"}" + text[late.start():])
PY
}

mkdir -p "$work/inputs"
pair=0
while [[ $# -ge 2 ]]; do
  host=$(realpath "$1") kineto=$(realpath "$2")
  shift 2
  pair=$((pair + 1))
  tag="p${pair}_$(basename "$host" | sed 's/\.json.*//')"
  run_case "$tag.link" et link --host "$host" --device "$kineto" -o linked.json --force
  linked="$work/inputs/$tag.linked.json"
  cp "$work/runs/$tag.link/after/linked.json" "$linked" 2>/dev/null || true
  [[ -f "$work/runs/$tag.link.diff" && ! -s "$work/runs/$tag.link.diff" ]] && rm -rf "$work/runs/$tag.link"
  if [[ -f "$linked" ]]; then run_case "$tag.convert_linked" et convert "$linked" -o converted; fi
  run_case "$tag.convert_host" et convert "$host" -o converted
  if [[ $pair -eq 1 ]]; then
    inflate "$host" > "$work/inputs/host.json"
    first_kineto=$kineto
    break_trace "$work/inputs/host.json" "$work/inputs/host"
    [[ -f "$linked" ]] && break_trace "$linked" "$work/inputs/linked"
  fi
done
for broken in "$work"/inputs/host.*.json "$work"/inputs/linked.*.json; do
  [[ -f "$broken" ]] || continue
  kind=$(basename "$broken" .json)
  run_case "broken.$kind.convert" et convert "$broken" -o converted
  [[ $kind == host.* ]] && run_case "broken.$kind.link" et link --host "$broken" --device "$first_kineto" -o linked.json
  rm -f "$broken"
done
echo "$cases cases, $failures different"
[[ $failures -eq 0 ]]
