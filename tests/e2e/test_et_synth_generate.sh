# snr et generate: every pattern writes replayable, deterministic traces.
source "$(dirname "$0")/lib.sh"
for pattern in allreduce allgather reducescatter alltoall dp tp pp hybrid; do
  "$SNR" et generate --pattern "$pattern" --npus 4 --layers 3 --size 256KiB -o "$WORK/$pattern/t" >"$WORK/out.txt"
  expect_contains "$WORK/out.txt" "wrote 4 rank traces"
  "$SNR" et validate "$WORK/$pattern/t" >"$WORK/validate.txt" || { cat "$WORK/validate.txt" >&2; fail "$pattern does not validate"; }
done
test -f "$WORK/hybrid/t.comm_groups.json" || fail "hybrid wrote no comm groups"
# Same options, same bytes.
"$SNR" et generate --pattern dp --npus 4 --layers 3 --size 256KiB -o "$WORK/again/t" >/dev/null
for r in 0 1 2 3; do cmp "$WORK/dp/t.$r.et" "$WORK/again/t.$r.et" || fail "dp rank $r differs between runs"; done
# Bad input is an error, and nothing is written.
expect_fail "$SNR" et generate --pattern nope --npus 4 -o "$WORK/bad/t"
expect_contains "$WORK/expect_fail.out" "unknown pattern 'nope'"
expect_fail "$SNR" et generate --pattern hybrid --npus 6 --tp-size 4 -o "$WORK/bad/t"
test ! -e "$WORK/bad/t.0.et" || fail "failed run left output behind"

# The checked-in examples are exactly what the generator produces.
EX="$SRC/examples/traces"
"$SNR" et generate --pattern hybrid --npus 4 --tp-size 2 --layers 3 --size 4MiB -o "$WORK/ex/hybrid" >/dev/null
"$SNR" et generate --pattern dp --npus 4 --layers 3 --size 4MiB -o "$WORK/ex/dp" >/dev/null
"$SNR" et generate --pattern pp --npus 4 --microbatches 2 --size 1MiB -o "$WORK/ex/pp" >/dev/null
for r in 0 1 2 3; do
  cmp "$WORK/ex/hybrid.$r.et" "$EX/hybrid_4npus/hybrid.$r.et" || fail "examples/traces/hybrid_4npus is stale"
  cmp "$WORK/ex/dp.$r.et" "$EX/dp_4npus/dp.$r.et" || fail "examples/traces/dp_4npus is stale"
  cmp "$WORK/ex/pp.$r.et" "$EX/pp_4npus/pp.$r.et" || fail "examples/traces/pp_4npus is stale"
done
cmp "$WORK/ex/hybrid.comm_groups.json" "$EX/hybrid_4npus/hybrid.comm_groups.json" || fail "hybrid comm groups stale"
(cd "$EX" && "$SNR" et synthesize fit hybrid_4npus/hybrid dp_4npus/dp -o "$WORK/ex/model.json" >/dev/null)
cmp "$WORK/ex/model.json" "$EX/comm_model.json" || fail "examples/traces/comm_model.json is stale"
echo "examples ok"
