# Every real .et from ASTRA-sim and Chakra: validate, then .et -> JSON -> .et
# must give back the identical bytes.
source "$(dirname "$0")/lib.sh"

if [[ ! -d "$DATA/astra-sim" ]]; then
  echo "SKIP: $DATA/astra-sim not available"
  exit 0
fi

count=0
while IFS= read -r -d '' et; do
  "$SNR" et jsonize "$et" -o "$WORK/x.json" >/dev/null
  "$SNR" et unjsonize "$WORK/x.json" -o "$WORK/x.et" >/dev/null
  cmp -s "$et" "$WORK/x.et" || fail "jsonize/unjsonize changed $et"
  count=$((count + 1))
done < <(find "$DATA/astra-sim" -name '*.et' -print0 | sort -z)
[[ $count -ge 100 ]] || fail "expected at least 100 .et files, found $count"

# Each ASTRA-sim workload prefix validates cleanly, all ranks at once.
for prefix in workload/microbenchmarks/all_reduce/16npus_1MB/all_reduce \
              workload/microbenchmarks/all_to_all/8npus_1MB/all_to_all \
              system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce; do
  "$SNR" et validate "$DATA/astra-sim/$prefix" >"$WORK/validate.txt"
  expect_contains "$WORK/validate.txt" "OK: "
  expect_contains "$WORK/validate.txt" "0 error(s), 0 warning(s)"
done
"$SNR" et validate "$DATA/astra-sim/workload/microbenchmarks/all_reduce/16npus_1MB/all_reduce" >"$WORK/v16.txt"
expect_contains "$WORK/v16.txt" "OK: 16 rank(s)"

# Chakra's feeder-test trace (inside a tarball): lossless too. It predates
# the comm attributes, so validate reports exactly those as errors.
if [[ ! -f "$DATA/chakra/feeder_tests_trace.tar.gz" ]]; then
  echo "et core roundtrip ok ($count astra-sim files; chakra tarball not available, skipped)"
  exit 0
fi
tar -xzf "$DATA/chakra/feeder_tests_trace.tar.gz" -C "$WORK" 2>/dev/null
et="$WORK/tests/data/chakra.0.et"
"$SNR" et jsonize "$et" -o "$WORK/c.json" | grep -q ": 3664 node(s)"
"$SNR" et unjsonize "$WORK/c.json" -o "$WORK/c.et" >/dev/null
cmp -s "$et" "$WORK/c.et" || fail "jsonize/unjsonize changed chakra.0.et"
expect_fail "$SNR" et validate "$et" --max-issues 1000
"$SNR" et validate "$et" --max-issues 1000 >"$WORK/cv.txt" || true
expect_contains "$WORK/cv.txt" "FAILED: 1 rank(s), 28 error(s)"
[[ $(grep -c '^error: ' "$WORK/cv.txt") -eq 28 ]] || fail "expected 28 listed errors"
[[ $(grep '^error: ' "$WORK/cv.txt" | grep -vc 'COMM_COLL_NODE without a comm_') -eq 0 ]] ||
  fail "unexpected kinds of error in chakra.0.et"

# gzip output reads back transparently and jsonizes the same.
"$SNR" et unjsonize "$WORK/c.json" -o "$WORK/c.et.gz" --gzip >/dev/null
[[ "$(head -c 2 "$WORK/c.et.gz" | od -An -tx1 | tr -d ' ')" == "1f8b" ]] || fail "no gzip magic"
"$SNR" et jsonize "$WORK/c.et.gz" -o "$WORK/c2.json" >/dev/null
cmp -s "$WORK/c.json" "$WORK/c2.json" || fail "gzip trace jsonizes differently"
echo "et core roundtrip ok ($count astra-sim files + chakra.0.et)"
