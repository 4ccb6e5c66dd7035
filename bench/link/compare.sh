#!/usr/bin/env bash
# Byte-identity of `snr et link` / `snr et convert` between two builds
# (docs/benchmarks.md, "snr et link"):
#   bench/link/compare.sh BEFORE AFTER WORK_DIR HOST KINETO [HOST KINETO]...
# For every pair: `snr et link` without and with --force, then `snr et
# convert` of each linked trace; stdout, stderr, exit status and every output
# file must be identical. With BROKEN=1 the first pair is also the base of
# broken inputs, each tried as the host and as the device trace (the other
# side intact): empty, cut, gzip damage of every kind, JSON errors near and
# at the 4 MiB window boundary (SIDES="host device" and VARIANTS="..." pick
# some). Prints one line per case and exits 1 on any difference.
set -euo pipefail
if [[ $# -lt 5 || $(( ($# - 3) % 2 )) -ne 0 ]]; then
  echo "usage: $0 BEFORE AFTER WORK_DIR HOST KINETO [HOST KINETO]..." >&2
  exit 2
fi
before=$(realpath "$1") after=$(realpath "$2") work=$3
shift 3
mkdir -p "$work"
work=$(realpath "$work")
differences=0

# run_case NAME ARGS...: runs `snr ARGS` with both builds in twin folders (so
# relative output paths print alike) and compares everything they made.
run_case() {
  local name=$1
  shift
  local build dir
  for build in before after; do
    dir="$work/$build"
    rm -rf "$dir"
    mkdir -p "$dir"
    local snr=$before
    [[ $build == after ]] && snr=$after
    (cd "$dir" && set +e && "$snr" "$@" >stdout 2>stderr; echo $? >status)
  done
  if diff -r "$work/before" "$work/after" >/dev/null; then
    echo "same       $name (exit $(cat "$work/before/status"))"
  else
    echo "DIFFERENT  $name"
    diff -r "$work/before" "$work/after" | head -5 || true
    differences=$((differences + 1))
  fi
}

link_and_convert() {  # link_and_convert NAME HOST KINETO
  local name=$1 host=$2 kineto=$3 force
  for force in "" --force; do
    run_case "$name link $force" et link --host "$host" --device "$kineto" -o linked.json $force
    if [[ -f "$work/before/linked.json" ]]; then
      cp "$work/before/linked.json" "$work/linked-$$.json"
      run_case "$name convert $force" et convert "$work/linked-$$.json" -o converted
      rm -f "$work/linked-$$.json"
    fi
  done
}

pairs=()
for path in "$@"; do pairs+=("$(realpath "$path")"); done  # the runs start in their own folders
for ((i = 0; i < ${#pairs[@]}; i += 2)); do
  link_and_convert "$(basename "$(dirname "${pairs[i]}")")/$(basename "${pairs[i]}") + $(basename "${pairs[i + 1]}")" \
    "${pairs[i]}" "${pairs[i + 1]}"
done

if [[ ${BROKEN:-0} == 1 ]]; then
  host=${pairs[0]} kineto=${pairs[1]}
  for side in ${SIDES:-host device}; do
    source_file=$host
    [[ $side == device ]] && source_file=$kineto
    for variant in ${VARIANTS:-$(python3 "$(dirname "$0")/broken_inputs.py" --list)}; do
      broken="$work/broken-$variant"
      python3 "$(dirname "$0")/broken_inputs.py" "$variant" "$source_file" "$broken"
      if [[ $side == host ]]; then
        run_case "broken $side: $variant" et link --host "$broken" --device "$kineto" -o linked.json
      else
        run_case "broken $side: $variant" et link --host "$host" --device "$broken" -o linked.json
      fi
      rm -f "$broken"
    done
  done
fi
rm -rf "$work/before" "$work/after"
echo "$differences difference(s)"
[[ $differences -eq 0 ]]
