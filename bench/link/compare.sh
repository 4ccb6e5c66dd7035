#!/usr/bin/env bash
# Byte-identity of `snr et link` / `snr et convert` between two builds
# (docs/benchmarks.md, "snr et link"):
#   bench/link/compare.sh BEFORE AFTER WORK_DIR HOST KINETO [HOST KINETO]...
# For every pair: `snr et link` without and with --force, `snr et convert` of
# each linked trace and of the host trace alone; stdout, stderr, exit status
# and every output file must be identical. With BROKEN=1 the first pair is
# also the base of broken inputs: empty, cut, gzip damage of every kind, JSON
# errors near and at the 4 MiB window boundary, each tried as the host trace
# (through `et link` and `et convert`), as the device trace, and as the
# linked trace `et convert` reads (a plain file: the mapped reader's path).
# SIDES="host device linked" and VARIANTS="..." pick some. Prints one line
# per case and exits 1 on any difference.
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
      [[ -z $force && $name == "$first_pair" ]] && cp "$work/linked-$$.json" "$work/first-linked.json"
      rm -f "$work/linked-$$.json"
    fi
  done
  run_case "$name convert host alone" et convert "$host" -o converted
}

pairs=()
for path in "$@"; do pairs+=("$(realpath "$path")"); done  # the runs start in their own folders
first_pair="$(basename "$(dirname "${pairs[0]}")")/$(basename "${pairs[0]}") + $(basename "${pairs[1]}")"
for ((i = 0; i < ${#pairs[@]}; i += 2)); do
  link_and_convert "$(basename "$(dirname "${pairs[i]}")")/$(basename "${pairs[i]}") + $(basename "${pairs[i + 1]}")" \
    "${pairs[i]}" "${pairs[i + 1]}"
done

if [[ ${BROKEN:-0} == 1 ]]; then
  host=${pairs[0]} kineto=${pairs[1]}
  for side in ${SIDES:-host device linked}; do
    source_file=$host
    [[ $side == device ]] && source_file=$kineto
    if [[ $side == linked ]]; then
      [[ -f "$work/first-linked.json" ]] || continue
      source_file="$work/first-linked.json"
    fi
    for variant in ${VARIANTS:-$(python3 "$(dirname "$0")/broken_inputs.py" --list)}; do
      broken="$work/broken-$variant"
      python3 "$(dirname "$0")/broken_inputs.py" "$variant" "$source_file" "$broken"
      if [[ $side == host ]]; then
        run_case "broken $side: $variant" et link --host "$broken" --device "$kineto" -o linked.json
        run_case "broken $side: $variant, convert" et convert "$broken" -o converted
      elif [[ $side == linked ]]; then
        run_case "broken $side: $variant, convert" et convert "$broken" -o converted
      else
        run_case "broken $side: $variant" et link --host "$host" --device "$broken" -o linked.json
      fi
      rm -f "$broken"
    done
  done
fi
rm -rf "$work/before" "$work/after" "$work/first-linked.json"
echo "$differences difference(s)"
[[ $differences -eq 0 ]]
