#!/usr/bin/env bash
# snr et convert on PyTorch traces whose numbers are out of range: a trace's
# own rank is an error naming the file and key (exit 1, nothing written); a
# node with a bad duration or a collective whose tensors have no size is a
# counted, reported skip; the traces of a job are its ranks 0 .. N-1.
source "$(dirname "$0")/lib.sh"

THREAD='{"id": 2, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 1, "inputs": {}, "outputs": {}, "attrs": []}'
# collective ID SHAPE [RANK]: an all-reduce record of one float tensor list.
collective() {
  printf '{"id": %s, "name": "record_param_comms", "ctrl_deps": 2, "inputs": {"values": [[[1,1,0,8,4,"cuda:0"]], 1, ["1", "default"], %s, "allreduce", [], [], 2], "shapes": [%s,[],[],[],[],[],[],[]], "types": ["GenericList[Tensor(float)]","Int","Tuple[String,String]","Int","String","GenericList[]","GenericList[]","Int"]}, "outputs": {}, "attrs": []}' \
    "$1" "${3:-0}" "$2"
}
# trace FILE ROOT NODES...: a host trace with root fields ROOT.
trace() {
  local file="$1" root="$2" nodes="$THREAD"
  shift 2
  for n in "$@"; do nodes="$nodes, $n"; done
  printf '{%s"nodes": [%s]}\n' "$root" "$nodes" >"$file"
}

# --- 1. the root's rank: 4294967296 used to allocate ~16.8 GB and die of
# bad_alloc (exit 70), 100000000 and -1 to write rk.100000000.et and
# rk.18446744073709551615.et, "0" to be taken as no rank.
for rank in 4294967296 100000000 1048576 -1 '"0"' 1.5; do
  trace "$WORK/r.json" "\"rank\": $rank, " "$(collective 3 '[[8]]')"
  expect_exit 1 timeout 60 "$SNR" et convert "$WORK/r.json" -o "$WORK/rk"
  expect_contains "$WORK/exit.out" "r.json: key 'rank' = $rank is "
  expect_contains "$WORK/exit.out" "valid 0 .. 1048575"
  [[ -z "$(ls "$WORK" | grep '^rk\.')" ]] || fail "rank $rank: files written: $(ls "$WORK")"
done
trace "$WORK/r.json" '"distributedInfo": {"rank": -3}, ' "$(collective 3 '[[8]]')"
expect_exit 1 "$SNR" et convert "$WORK/r.json" -o "$WORK/rk"
expect_contains "$WORK/exit.out" "r.json: key 'distributedInfo.rank' = -3 is out of range"
trace "$WORK/r.json" '"rank": 1048575, ' "$(collective 3 '[[8]]')"
expect_exit 0 "$SNR" et convert "$WORK/r.json" -o "$WORK/rk"
[[ -f "$WORK/rk.1048575.et" ]] || fail "rank 1048575 not written"
# A rank inferred from the collectives' rank field has the same range.
trace "$WORK/inf.json" "" "$(collective 3 '[[8]]' 4294967296)"
expect_exit 1 timeout 60 "$SNR" et convert "$WORK/inf.json" -o "$WORK/inf"
expect_contains "$WORK/exit.out" "inf.json: rank 4294967296 (inferred: the rank field of 1 collective record(s)) is out of range"

# --- 2. a collective whose tensors have no size used to become a message of
# 0 bytes (2^32 x 2^32 wrapped) or of num_elem x elem_bytes (negative dims).
for shape in '[[-1]]' '[[4294967296,4294967296]]' '[["a"]]'; do
  trace "$WORK/s.json" '"rank": 0, ' "$(collective 3 '[[8]]')" "$(collective 4 "$shape")"
  expect_exit 0 "$SNR" et convert "$WORK/s.json" -o "$WORK/s"
  expect_contains "$WORK/exit.out" "s.json: 1 bad record(s) skipped (first: record 2 id 4: inputs: value 0 (shape $shape): a tensor without a size"
  expect_contains "$WORK/exit.out" "nodes: 0 CPU ops, 0 GPU ops, 1 COMM_COLL"
done
# A linked node's duration used to be dropped (converted as 0 µs).
KERNEL='{"id": 5, "name": "kernel", "ctrl_deps": 3, "snr_kind": "kernel", "stream": 7, "device": 0, "ts_ns": 1000, "dur_ns": %s}'
OP='{"id": 3, "name": "aten::add", "ctrl_deps": 2, "inputs": {}, "outputs": {}, "attrs": [], "ts_ns": 500, "dur_ns": 2000}'
for dur in -5 18446744073709551616 '"x"'; do
  # shellcheck disable=SC2059
  trace "$WORK/d.json" '"rank": 0, ' "$OP" "$(printf "$KERNEL" "$dur")"
  expect_exit 0 "$SNR" et convert "$WORK/d.json" -o "$WORK/d"
  expect_contains "$WORK/exit.out" "d.json: 1 bad record(s) skipped (first: record 2 id 5: \"dur_ns\" is not a non-negative integer)"
  expect_contains "$WORK/exit.out" "nodes: 1 CPU ops, 0 GPU ops"
done

# --- 3. the traces of a job: rank 7 of a job of 2 used to write gap.7.et
# beside comm_groups.json {"1": [0, 1]}.
# groups SIZE: process_group:init describing group "1" as ranks 0 .. SIZE-1.
groups() {
  printf '{"id": 9, "name": "## process_group:init ##", "ctrl_deps": 1, "inputs": {"values": ["[{\\"pg_name\\": \\"1\\", \\"ranks\\": [], \\"group_size\\": %s}]"], "shapes": [[]], "types": ["String"]}, "outputs": {}, "attrs": []}' "$1"
}
trace "$WORK/a.json" '"rank": 0, ' "$(groups 2)" "$(collective 3 '[[8]]')"
trace "$WORK/b.json" '"rank": 7, ' "$(groups 2)" "$(collective 3 '[[8]]' 7)"
expect_exit 1 "$SNR" et convert "$WORK/a.json" "$WORK/b.json" -o "$WORK/gap"
expect_contains "$WORK/exit.out" "b.json: rank 7 (the trace's root) is not a rank of a job of 2 traces: the traces of a job are its ranks 0 .. 1"
[[ -z "$(ls "$WORK" | grep '^gap\.')" ]] || fail "a job with a gap wrote files"
trace "$WORK/b.json" '"rank": 1, ' "$(groups 2)" "$(collective 3 '[[8]]' 1)"
expect_exit 0 "$SNR" et convert "$WORK/a.json" "$WORK/b.json" -o "$WORK/job"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1])) == {"1": [0, 1]}' "$WORK/job.comm_groups.json"
# A group size beyond any job used to size the groups (gigabytes): skipped.
trace "$WORK/big.json" '"rank": 0, ' "$(groups 4294967296)" "$(collective 3 '[[8]]')"
expect_exit 0 timeout 60 "$SNR" et convert "$WORK/big.json" -o "$WORK/big"
expect_contains "$WORK/exit.out" "unreadable process-group description: group 0 group_size = 4294967296 is not an integer in 0 .. 1048576"
echo "et convert bad numbers ok"
