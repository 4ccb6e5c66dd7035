#!/usr/bin/env bash
# Issue 18, silent defaults and wrap-around: empty, comment-only and
# directory inputs are errors; unsigned options reject negatives; counts and
# sizes have upper bounds; duplicate YAML keys are errors.
source "$(dirname "$0")/lib.sh"

# expect_usage_error TEXT CMD... — exit code 2 and TEXT in the message.
expect_usage_error() {
  local text="$1" status=0
  shift
  "$@" >"$WORK/usage.out" 2>&1 || status=$?
  ((status == 2)) || { cat "$WORK/usage.out" >&2; fail "exit $status (expected 2): $*"; }
  expect_contains "$WORK/usage.out" "$text"
}

# snr compile used to compile the built-in 8B decode model for these.
: >"$WORK/empty.yaml"
printf '# to be written\n\n# later\n' >"$WORK/comments.yaml"
mkdir "$WORK/specdir"
expect_fail "$SNR" compile "$WORK/empty.yaml" -o "$WORK/m1"
expect_contains "$WORK/expect_fail.out" "empty.yaml' is empty"
expect_fail "$SNR" compile "$WORK/comments.yaml" -o "$WORK/m2"
expect_contains "$WORK/expect_fail.out" "comments.yaml: no YAML content"
expect_fail "$SNR" compile "$WORK/specdir" -o "$WORK/m3"
expect_contains "$WORK/expect_fail.out" "specdir' is a directory"
for m in m1 m2 m3; do [[ ! -e "$WORK/$m" ]] || fail "compile left $m behind"; done

# Duplicate keys: spec and hardware config.
printf 'model:\n  hidden: 1024\n  hidden: 2048\n' >"$WORK/dup.yaml"
expect_fail "$SNR" compile "$WORK/dup.yaml" -o "$WORK/m4"
expect_contains "$WORK/expect_fail.out" "dup.yaml:3: duplicate key 'hidden' (first at line 2)"
printf 'chips: 2\nchips: 4\n' >"$WORK/duphw.yaml"
echo '_start: ret' >"$WORK/p.s"
"$SNR" asm "$WORK/p.s" -o "$WORK/p.elf"
expect_fail "$SNR" run "$WORK/p.elf" --hw "$WORK/duphw.yaml"
expect_contains "$WORK/expect_fail.out" "duphw.yaml:2: duplicate key 'chips' (first at line 1)"
# A second YAML document is refused, not dropped (the run used to take the
# first document's 1GHz and say nothing of the second).
printf -- '---\nclock: 1GHz\n---\nclock: 2GHz\n' >"$WORK/twodocs.yaml"
expect_fail "$SNR" run "$WORK/p.elf" --hw "$WORK/twodocs.yaml"
expect_contains "$WORK/expect_fail.out" "twodocs.yaml:4: a second YAML document (after '---')"
printf -- 'model:\n  layers: 1\n---\nmodel:\n  layers: 4\n' >"$WORK/twodocs_spec.yaml"
expect_fail "$SNR" compile "$WORK/twodocs_spec.yaml" -o "$WORK/m5"
expect_contains "$WORK/expect_fail.out" "twodocs_spec.yaml:4: a second YAML document"
[[ ! -e "$WORK/m5" ]] || fail "compile left m5 behind"

# snr asm used to write an ELF without code for these.
: >"$WORK/empty.s"
printf '# nothing\n' >"$WORK/comment.s"
expect_fail "$SNR" asm "$WORK/empty.s" -o "$WORK/e.elf"
expect_contains "$WORK/expect_fail.out" "empty.s' is empty"
expect_fail "$SNR" asm "$WORK/comment.s" -o "$WORK/e.elf"
expect_contains "$WORK/expect_fail.out" "comment.s: no instructions"
expect_fail "$SNR" asm "$WORK/specdir" -o "$WORK/e.elf"
expect_contains "$WORK/expect_fail.out" "specdir' is a directory"
[[ ! -e "$WORK/e.elf" ]] || fail "asm wrote an ELF without code"

# Negative numbers for unsigned options used to wrap.
printf 'COMP 0\n' >/dev/null
expect_usage_error "--text-base" "$SNR" asm "$WORK/p.s" -o "$WORK/t.elf" --text-base -5
expect_contains "$WORK/usage.out" "without a sign"
expect_usage_error "--rank" "$SNR" et convert "$WORK/p.s" -o "$WORK/cvr" --rank -1
[[ -z "$(ls "$WORK" | grep '^cvr')" ]] || fail "et convert --rank -1 wrote files"
expect_usage_error "--compute-us" "$SNR" et generate --pattern allreduce --npus 4 -o "$WORK/g" \
  --compute-us 18446744073709551615
expect_usage_error "--npus" "$SNR" et generate --pattern allreduce --npus 0 -o "$WORK/g"
expect_usage_error "--npus" "$SNR" et generate --pattern allreduce --npus -4 -o "$WORK/g"
expect_usage_error "--chips" "$SNR" run "$WORK/p.elf" --chips 0
expect_usage_error "--chips" "$SNR" run "$WORK/p.elf" --chips 100000
expect_usage_error "--npus" "$SNR" et synthesize sample "$WORK/none.json" --npus 100000000 -o "$WORK/s"
expect_usage_error "--max-nodes" "$SNR" et visualize "$WORK/p.s" -o "$WORK/v.dot" --max-nodes 0
expect_usage_error "--timeout" "$SNR" record --target 127.0.0.1:1 --count 10 -o "$WORK/r.snr" --timeout 0
expect_usage_error "--top" "$SNR" analyze "$WORK/x.db" -o "$WORK/rep" --top -1
[[ ! -e "$WORK/g.0.et" && ! -e "$WORK/s.0.et" ]] || fail "a rejected command wrote output"

# Bounds that keep memory sane are explained, not hit.
expect_fail "$SNR" et generate --pattern allreduce --npus 1048576 --layers 65536 -o "$WORK/huge"
expect_contains "$WORK/expect_fail.out" "nodes"
[[ -z "$(ls -A "$WORK" | grep huge)" ]] || fail "et generate left output behind"
echo "hardening inputs ok"
