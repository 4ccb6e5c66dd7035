#!/usr/bin/env bash
# Fuzzes snr's readers of outside input with libFuzzer: builds the fuzz
# targets if needed (clang, build-fuzz/), runs each target (all of them, or
# the named ones) for SECONDS_PER_TARGET seconds, one after the other, seeded
# with its committed corpus and reproducers and using its dictionary when it
# has one, then merges inputs that reached new coverage into the committed
# corpus. Crashing inputs are saved as reproducers (fuzz_repro/<target>/
# beside the target's source), which the test suite replays from then on.
# Prints per target: executions, exec/s, coverage, inputs merged, crashes.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default 60 s)
# Environment:
#   SNR_FUZZ_BUILD_DIR  build directory (default build-fuzz)
#   SNR_FUZZ_RUNS       also stop a target after this many executions
#   SNR_FUZZ_MAX_LEN    longest input tried and merged, in bytes (default
#                       4096, or the longest committed input if larger)
#   SNR_FUZZ_MERGE=0    leave the committed corpus as it is
#   SNR_FUZZ_BUILD=0    use the binaries as they are (no build step)
# Exit status: 1 if any target crashed (or its run failed), else 0.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [[ $# -gt 0 && "$1" =~ ^[0-9]+$ ]]; then
  seconds="$1"
  shift
fi
build_dir="${SNR_FUZZ_BUILD_DIR:-build-fuzz}"
default_max_len="${SNR_FUZZ_MAX_LEN:-4096}"

# Configure once; then build only the targets asked for (all by default).
if [[ "${SNR_FUZZ_BUILD:-1}" != 0 ]]; then
  build_log="$(mktemp)"
  if [[ -f "$build_dir/build.ninja" ]]; then
    build=(cmake --build "$build_dir" -j "$(nproc)" --target "${@:-snr_fuzz_targets}")
  else
    build=(env SNR_FUZZ=1 scripts/build.sh "$build_dir")
  fi
  if ! "${build[@]}" >"$build_log" 2>&1; then
    cat "$build_log" >&2
    rm -f "$build_log"
    echo "fuzz.sh: the libFuzzer build failed" >&2
    exit 1
  fi
  rm -f "$build_log"
fi
manifest="$build_dir/fuzz_targets.tsv"
[[ -f "$manifest" ]] || { echo "fuzz.sh: $manifest missing" >&2; exit 1; }

declare -A wanted=()
for target in "$@"; do
  grep -q "^$target"$'\t' "$manifest" || { echo "fuzz.sh: no fuzz target '$target' (see $manifest)" >&2; exit 2; }
  wanted["$target"]=1
done

logs="$build_dir/fuzz-logs"
mkdir -p "$logs"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Largest file under the given directories, in bytes (0 if none).
largest_file() {
  local size=0 dir
  for dir in "$@"; do
    [[ -d "$dir" ]] || continue
    local s
    s=$(find "$dir" -type f -printf '%s\n' | sort -n | tail -1)
    if [[ -n "$s" ]] && ((s > size)); then size=$s; fi
  done
  echo "$size"
}

file_count() {
  if [[ -d "$1" ]]; then find "$1" -type f | wc -l; else echo 0; fi
}

printf '%-30s %12s %9s %7s %8s %7s %8s %s\n' target executions exec/s cov features merged crashes result
failed=0
while IFS=$'\t' read -r name binary corpus repro dict; do
  [[ "$name" == \#* || -z "$name" ]] && continue
  if ((${#wanted[@]} > 0)) && [[ -z "${wanted[$name]:-}" ]]; then continue; fi
  [[ "$corpus" == - ]] && corpus=""
  [[ "$dict" == - ]] && dict=""

  seeds=()
  for dir in "$corpus" "$repro"; do
    if [[ -n "$dir" && -d "$dir" ]]; then seeds+=("$dir"); fi
  done
  max_len="$default_max_len"
  largest=$(largest_file "${seeds[@]}")
  if ((largest > max_len)); then max_len=$largest; fi

  new="$work/$name/new"
  artifacts="$work/$name/artifacts"
  mkdir -p "$new" "$artifacts"
  args=(-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048
        -print_final_stats=1 -artifact_prefix="$artifacts/")
  if [[ -n "$dict" ]]; then args+=(-dict="$dict"); fi
  if [[ -n "${SNR_FUZZ_RUNS:-}" ]]; then args+=(-runs="$SNR_FUZZ_RUNS"); fi

  log="$logs/$name.log"
  status=0
  "$binary" "${args[@]}" "$new" "${seeds[@]}" >"$log" 2>&1 || status=$?

  # A target that crashes on its first input prints no coverage line; the
  # reproducer must still be saved below, so no extraction may fail the script.
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1 || true)
  cov=$({ grep -oE 'cov: [0-9]+' "$log" || true; } | tail -1 | cut -d' ' -f2)
  features=$({ grep -oE 'ft: [0-9]+' "$log" || true; } | tail -1 | cut -d' ' -f2)

  crashes=0
  for artifact in "$artifacts"/*; do
    [[ -f "$artifact" ]] || continue
    mkdir -p "$repro"
    cp "$artifact" "$repro/"
    echo "fuzz.sh: $name: new reproducer $repro/$(basename "$artifact")" >&2
    crashes=$((crashes + 1))
  done

  result=ok
  if ((status != 0)); then
    result="FAILED (exit $status, see $log)"
    failed=1
    if ((crashes == 0)); then tail -20 "$log" >&2; fi
  fi

  merged=0
  if ((status == 0)) && [[ "${SNR_FUZZ_MERGE:-1}" != 0 && -n "$corpus" ]]; then
    mkdir -p "$corpus"
    before=$(file_count "$corpus")
    # Only inputs that reach edges the corpus does not (-use_counters=0:
    # hit-count buckets would keep hundreds of near-duplicates).
    if "$binary" -merge=1 -use_counters=0 -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 "$corpus" "$new" \
        >"$logs/$name.merge.log" 2>&1; then
      merged=$(($(file_count "$corpus") - before))
    else
      result="merge failed (see $logs/$name.merge.log)"
      failed=1
    fi
  fi
  printf '%-30s %12s %9s %7s %8s %7s %8s %s\n' "$name" "${execs:-?}" "${rate:-?}" "${cov:-?}" \
    "${features:-?}" "$merged" "$crashes" "$result"
done <"$manifest"
exit "$failed"
