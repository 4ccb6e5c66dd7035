#!/usr/bin/env bash
# Issue 18, outputs: checked before any work (exit 1 with the path, never
# "internal error: filesystem error"), parent directories created the same
# way by every verb, staged and moved into place at the end, staging removed
# on errors and on SIGINT/SIGTERM.
source "$(dirname "$0")/lib.sh"

# A regular file where a directory is needed: unwritable even for root.
echo "not a directory" >"$WORK/file"
bad="$WORK/file/sub"

# expect_output_error CMD... — exit 1, the message names the bad path and
# no internal error.
expect_output_error() {
  local status=0
  "$@" >"$WORK/out.txt" 2>&1 || status=$?
  ((status == 1)) || { cat "$WORK/out.txt" >&2; fail "exit $status (expected 1): $*"; }
  expect_contains "$WORK/out.txt" "$WORK/file"
  if grep -q "internal error" "$WORK/out.txt"; then cat "$WORK/out.txt" >&2; fail "internal error: $*"; fi
}

echo '_start: ret' >"$WORK/p.s"
"$SNR" asm "$WORK/p.s" -o "$WORK/p.elf"
"$SNR" et generate --pattern allreduce --npus 4 -o "$WORK/ar" >/dev/null

# snr record: refused before connecting (the target port is closed, so a
# late check would report the connection instead).
expect_output_error "$SNR" record --target 127.0.0.1:1 --count 10 -o "$bad/r.snr"
expect_output_error "$SNR" compile "$SRC/examples/allgather.yaml" -o "$bad/model"
expect_output_error "$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/file"
expect_output_error "$SNR" asm "$WORK/p.s" -o "$bad/p.elf"
expect_output_error "$SNR" disasm "$WORK/p.elf" -o "$bad/p.lst"
expect_output_error "$SNR" et generate --pattern allreduce --npus 4 -o "$bad/g"
expect_output_error "$SNR" et convert --from text "$SRC/src/et/convert/testdata/data_parallel.txt" --npus 2 -o "$bad/t"
expect_output_error "$SNR" et jsonize "$WORK/ar.0.et" -o "$bad/x.json"
expect_output_error "$SNR" et visualize "$WORK/ar.0.et" -o "$bad/x.dot"
expect_output_error "$SNR" et synthesize fit "$WORK/ar" -o "$bad/m.json"
# A directory given where a file belongs says so.
mkdir "$WORK/adir"
expect_fail "$SNR" asm "$WORK/p.s" -o "$WORK/adir"
expect_contains "$WORK/expect_fail.out" "is a directory"

# Parent directories are created consistently (snr replay used to fail).
"$SNR" compile "$SRC/examples/allgather.yaml" -o "$WORK/new/dir/model" >/dev/null
[[ -f "$WORK/new/dir/model/manifest.json" ]] || fail "compile did not create parent directories"
"$SNR" asm "$WORK/p.s" -o "$WORK/new/a/b/p.elf"
"$SNR" et synthesize fit "$WORK/ar" -o "$WORK/new/c/m.json" >/dev/null
[[ -f "$WORK/new/a/b/p.elf" && -f "$WORK/new/c/m.json" ]] || fail "parents not created"
# No staging left anywhere after successful runs.
[[ -z "$(find "$WORK" -name '.*staging*' -o -name '*.tmp.*')" ]] || fail "staging left behind"

# Interrupted runs leave nothing: neither rank files that look like a
# complete trace set nor a hidden staging folder.
printf 'DATA\n1\nallreduce -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 1048576 1\n' >"$WORK/wl.txt"
mkdir "$WORK/int"
for signal in INT TERM; do
  status=0
  timeout -s "$signal" 2 "$SNR" et convert --from text "$WORK/wl.txt" --npus 1000000 -o "$WORK/int/cvr" \
    >/dev/null 2>&1 || status=$?
  ((status == 124 || status == 130 || status == 143)) || fail "SIG$signal: unexpected exit $status"
  [[ -z "$(ls -A "$WORK/int")" ]] || { ls -A "$WORK/int" | head; fail "SIG$signal left files behind"; }
done
status=0
timeout -s INT 2 "$SNR" et generate --pattern allreduce --npus 200000 -o "$WORK/int/gen" >/dev/null 2>&1 || status=$?
[[ -z "$(ls -A "$WORK/int")" ]] || { ls -A "$WORK/int" | head; fail "SIGINT on et generate left files behind"; }

# Sizes that cannot fit are refused after measuring one rank, before the
# rest is written (about 1 MB per rank times a million ranks).
expect_fail "$SNR" et convert --from text "$WORK/wl.txt" --npus 1048576 --passes 4096 -o "$WORK/int/huge"
expect_contains "$WORK/expect_fail.out" "would not fit"
[[ -z "$(ls -A "$WORK/int")" ]] || fail "a refused size left files behind"

# Progress on a terminal: a rate and an ETA (script(1) provides the tty).
if command -v script >/dev/null; then
  timeout 20 script -qec "timeout -s INT 4 $SNR et convert --from text $WORK/wl.txt --npus 1000000 -o $WORK/int/tty" \
    /dev/null >"$WORK/tty.out" 2>&1 || true
  expect_contains "$WORK/tty.out" "ranks, "
  expect_contains "$WORK/tty.out" "/s, ETA "
  [[ -z "$(ls -A "$WORK/int")" ]] || fail "SIGINT under a terminal left files behind"
fi
echo "hardening outputs ok"
