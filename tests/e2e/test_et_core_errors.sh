# Malformed traces give one clear error line (file, byte offset, message
# index, what is wrong), a non-zero exit, and no output file.
source "$(dirname "$0")/lib.sh"

sample="$SRC/src/formats/chakra/testdata/sample.0.et"
size=$(stat -c %s "$sample")

# Truncated: the last node (49 bytes after its 1-byte prefix at 517) loses 3.
head -c $((size - 3)) "$sample" >"$WORK/truncated.et"
expect_fail "$SNR" et jsonize "$WORK/truncated.et" -o "$WORK/out.json"
expect_contains "$WORK/expect_fail.out" \
  "snr: error: $WORK/truncated.et: byte 517, message 6: truncated message: length prefix says 49 bytes but only 46 remain"
[[ ! -e "$WORK/out.json" ]] || fail "partial output left behind"

# Lenient jsonize skips the broken tail and says so.
"$SNR" et jsonize "$WORK/truncated.et" -o "$WORK/out.json" --lenient >"$WORK/lenient.txt"
expect_contains "$WORK/lenient.txt" "5 node(s), 1 bad record(s) skipped"

# Garbage after the metadata.
head -c 39 "$sample" >"$WORK/garbage.et"
printf '\x03\xff\xff\xff' >>"$WORK/garbage.et"
expect_fail "$SNR" et validate "$WORK/garbage.et"
expect_contains "$WORK/expect_fail.out" "byte 39, message 1: parse failure: 3 bytes are not a valid ChakraProtoMsg.Node"

# Oversized length prefix (4 GiB).
head -c 39 "$sample" >"$WORK/oversized.et"
printf '\xff\xff\xff\xff\x0f' >>"$WORK/oversized.et"
expect_fail "$SNR" et jsonize "$WORK/oversized.et" -o "$WORK/o.json"
expect_contains "$WORK/expect_fail.out" \
  "byte 39, message 1: message too large: length prefix says 4294967295 bytes, limit is 268435456"

# Empty file and a text file.
: >"$WORK/empty.et"
expect_fail "$SNR" et validate "$WORK/empty.et"
expect_contains "$WORK/expect_fail.out" "empty.et' is empty"
echo "hello world, not a trace" >"$WORK/text.et"
expect_fail "$SNR" et jsonize "$WORK/text.et" -o "$WORK/t.json"
expect_contains "$WORK/expect_fail.out" "$WORK/text.et: byte 0, message 0:"

# Missing prefix, rank gaps.
expect_fail "$SNR" et validate "$WORK/nothing"
expect_contains "$WORK/expect_fail.out" "no such file, and no nothing.<rank>.et files beside it"
cp "$sample" "$WORK/r.0.et"
cp "$sample" "$WORK/r.2.et"
expect_fail "$SNR" et validate "$WORK/r"
expect_contains "$WORK/expect_fail.out" "rank 1 is missing"

# Bad JSON for unjsonize names the node.
printf '{"globalMetadata": {"version": "1"}, "nodes": [{"id": "1", "bogus": 2}]}' >"$WORK/bad.json"
expect_fail "$SNR" et unjsonize "$WORK/bad.json" -o "$WORK/bad.et"
expect_contains "$WORK/expect_fail.out" "bad.json: nodes[0]: not a valid ChakraProtoMsg.Node"
[[ ! -e "$WORK/bad.et" ]] || fail "partial .et left behind"
# "nodes" of another shape, or missing, is not an empty trace.
printf '{"globalMetadata": {"version": "1"}, "nodes": {}}' >"$WORK/obj.json"
expect_fail "$SNR" et unjsonize "$WORK/obj.json" -o "$WORK/obj.et"
expect_contains "$WORK/expect_fail.out" "obj.json: \"nodes\" must be a list of node objects"
printf '{"globalMetadata": {"version": "1"}}' >"$WORK/none.json"
expect_fail "$SNR" et unjsonize "$WORK/none.json" -o "$WORK/none.et"
expect_contains "$WORK/expect_fail.out" "none.json: no \"nodes\" list found"
[[ ! -e "$WORK/obj.et" && ! -e "$WORK/none.et" ]] || fail "a trace was written for a bad \"nodes\""
echo "et core errors ok"
