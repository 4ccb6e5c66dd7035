# snr et convert --from text on small hand-written ASTRA-sim workloads.
source "$(dirname "$0")/lib.sh"
TESTDATA="$SRC/src/et/convert/testdata"

"$SNR" et convert --from text "$TESTDATA/data_parallel.txt" -o "$WORK/dp" --npus 4 >"$WORK/out.txt"
for rank in 0 1 2 3; do
  [[ -s "$WORK/dp.$rank.et" ]] || fail "missing dp.$rank.et"
done
# 3 layers: 3 FWD + 3 BWD_WG + 2 BWD_IG compute nodes + 3 all-reduces.
expect_contains "$WORK/out.txt" "dp.3.et: 11 node(s)"
"$SNR" et validate "$WORK/dp" >"$WORK/validate.out"
expect_contains "$WORK/validate.out" "COMM_COLL_NODE=3 COMP_NODE=8"
cmp "$WORK/dp.0.et" "$WORK/dp.3.et" || fail "ranks of a text workload differ"

"$SNR" et convert --from text "$TESTDATA/data_parallel.txt" -o "$WORK/dp2" --npus 1 --passes 2 >"$WORK/out.txt"
expect_contains "$WORK/out.txt" "dp2.0.et: 22 node(s)"

"$SNR" et convert --from text "$TESTDATA/model_parallel.txt" -o "$WORK/mp" --npus 2 >"$WORK/out.txt"
# 2 layers: FWD+ALLGATHER each, BWD_IG each, REDUCESCATTER for l2 only, BWD_WG each.
expect_contains "$WORK/out.txt" "mp.1.et: 9 node(s)"
"$SNR" et jsonize "$WORK/mp.0.et" -o "$WORK/mp.json" >/dev/null
python3 - "$WORK/mp.json" <<'PY'
import json, sys
nodes = {n["name"]: n for n in json.load(open(sys.argv[1]))["nodes"]}
ag = nodes["COMM_COLL_NODE_l2_ALLGATHER"]
attrs = {a["name"]: a for a in ag["attr"]}
assert attrs["comm_type"]["int64Val"] == "2", attrs      # ALL_GATHER
assert attrs["comm_size"]["int64Val"] == "256", attrs    # column 5 of layer l2
assert nodes["COMP_NODE_l2_FWD"]["dataDeps"] == [nodes["COMM_COLL_NODE_l1_ALLGATHER"]["id"]]
PY

"$SNR" et convert --from text "$TESTDATA/hybrid.txt" -o "$WORK/hy" --npus 2 >"$WORK/out.txt"
expect_contains "$WORK/out.txt" "hy.0.et: 10 node(s)"

expect_fail "$SNR" et convert --from text "$TESTDATA/hybrid.txt" -o "$WORK/x"
expect_contains "$WORK/expect_fail.out" "--npus"
expect_fail "$SNR" et convert --from text "$TESTDATA/hybrid.txt" -o "$WORK/x" --npus 2 --rank 1
printf 'DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 BCAST 5 1\n' >"$WORK/bad.txt"
expect_fail "$SNR" et convert --from text "$WORK/bad.txt" -o "$WORK/bad" --npus 1
expect_contains "$WORK/expect_fail.out" "bad.txt:3: unknown communication type 'BCAST'"
[[ ! -e "$WORK/bad.0.et" ]] || fail "a failed conversion left an output file"
echo "et convert (text) ok"
