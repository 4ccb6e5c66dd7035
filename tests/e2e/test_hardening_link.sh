#!/usr/bin/env bash
# Issue 18, `snr et link`: a loud warning below the default linking
# threshold, and --min-linked FRACTION fails the command (writing nothing).
source "$(dirname "$0")/lib.sh"
require_data pytorch/hta pytorch/param
HTA="$DATA/pytorch/hta"
PARAM="$DATA/pytorch/param"

# A matched pair: no warning.
"$SNR" et link --host "$HTA/benchmark_simple_add_et.json.gz" --device "$HTA/benchmark_simple_add_trace.json.gz" \
  -o "$WORK/ok.json" >"$WORK/ok.out" 2>"$WORK/ok.err"
if grep -q WARNING "$WORK/ok.err"; then cat "$WORK/ok.err"; fail "warning on a matched pair"; fi
"$SNR" et link --host "$HTA/benchmark_simple_add_et.json.gz" --device "$HTA/benchmark_simple_add_trace.json.gz" \
  -o "$WORK/ok2.json" --min-linked 0.9 >/dev/null

# Host and device traces of different runs: nothing links. Exit 0 is only
# acceptable with a loud warning; refusing (writing nothing) is fine too.
status=0
"$SNR" et link --host "$HTA/benchmark_simple_add_et.json.gz" --device "$PARAM/linear_kineto.json.gz" \
  -o "$WORK/mixed.json" >"$WORK/mixed.out" 2>"$WORK/mixed.err" || status=$?
if ((status == 0)); then
  expect_contains "$WORK/mixed.err" "WARNING: only 0 of "
  expect_contains "$WORK/mixed.err" "--min-linked"
else
  ((status == 1)) || { cat "$WORK/mixed.err"; fail "mixed pair: exit $status"; }
  expect_contains "$WORK/mixed.err" "not written"
  [[ ! -e "$WORK/mixed.json" ]] || fail "a refused link wrote its output"
fi
# --min-linked fails the command and writes nothing, whatever else is said.
expect_fail "$SNR" et link --host "$HTA/benchmark_simple_add_et.json.gz" --device "$PARAM/linear_kineto.json.gz" \
  -o "$WORK/mixed2.json" --min-linked 0.5
expect_contains "$WORK/expect_fail.out" "mixed2.json not written"
[[ ! -e "$WORK/mixed2.json" ]] || fail "--min-linked failure wrote the output"
# The real PARAM pair links few of its GPU kernels (the Kineto trace holds
# more iterations than the host trace): --min-linked makes that an error.
expect_fail "$SNR" et link --host "$PARAM/linear_et.json.gz" --device "$PARAM/linear_kineto.json.gz" \
  -o "$WORK/param.json" --min-linked 0.9
expect_contains "$WORK/expect_fail.out" "below --min-linked 0.9"
[[ ! -e "$WORK/param.json" ]] || fail "--min-linked failure wrote the output"

# The fraction is a fraction.
status=0
"$SNR" et link --host a --device b -o c --min-linked 1.5 >/dev/null 2>&1 || status=$?
((status == 2)) || fail "--min-linked 1.5: exit $status, expected 2"
echo "hardening link ok"

# A trace shipped as a tar archive (PARAM's pt2 trace) is named as one, as
# either input of `et link` and as `et convert`'s input, plain or gzip.
for side in host device; do
  if [[ $side == host ]]; then args=(--host "$PARAM/pt2_et.json.tar.gz" --device "$PARAM/linear_kineto.json.gz")
  else args=(--host "$PARAM/linear_et.json.gz" --device "$PARAM/pt2_et.json.tar.gz"); fi
  expect_fail "$SNR" et link "${args[@]}" -o "$WORK/tar.json"
  expect_contains "$WORK/expect_fail.out" "pt2_et.json.tar.gz: a tar archive (first member 'pt2_et.json')"
done
gzip -dc "$PARAM/pt2_et.json.tar.gz" > "$WORK/pt2_et.json.tar"
for archive in "$PARAM/pt2_et.json.tar.gz" "$WORK/pt2_et.json.tar"; do
  expect_fail "$SNR" et convert "$archive" -o "$WORK/tar"
  expect_contains "$WORK/expect_fail.out" "a tar archive (first member 'pt2_et.json'), not a JSON trace"
done
