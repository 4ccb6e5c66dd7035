#!/usr/bin/env bash
# snr sim --perturbation-configuration: an empty file changes nothing (same
# bytes out), a slow link slows the ring all-reduce and shows in links.csv,
# and bad files fail naming the key, before any output is written.
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
if [[ ! -d "$A" ]]; then echo "SKIP: $A not present"; exit 0; fi

run_sim() {  # backend out_dir [extra args]
  "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
    --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
    --network-configuration="$A/network/analytical/Ring_8npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" \
    --network-backend="$1" -o "$2" "${@:3}"
}

echo '{}' > "$WORK/empty.json"
for backend in analytical-congestion-aware analytical-congestion-unaware; do
  run_sim $backend "$WORK/plain-$backend" > "$WORK/plain.txt"
  expect_contains "$WORK/plain.txt" "sys[7] finished, 64440 cycles"
  run_sim $backend "$WORK/empty-$backend" --perturbation-configuration="$WORK/empty.json" > "$WORK/empty.txt"
  cmp "$WORK/plain.txt" "$WORK/empty.txt" || fail "$backend: an empty perturbation file changed the result"
  for f in npus.csv links.csv summary.json timeline.json; do
    cmp "$WORK/plain-$backend/$f" "$WORK/empty-$backend/$f" || fail "$backend: $f differs with an empty file"
  done
done

# Link 3 -> 4 at half bandwidth: every message on it takes twice as long to
# serialize, and the ring waits for it.
cat > "$WORK/slow_link.json" <<'JSON'
{"description": "a degraded cable", "links": [{"src": 3, "dst": 4, "bandwidth_factor": 0.5}]}
JSON
run_sim analytical-congestion-aware "$WORK/slow" --perturbation-configuration="$WORK/slow_link.json" > "$WORK/slow.txt"
finish() { sed -n 's/.*"finish_ns": \([0-9]*\).*/\1/p' "$1/summary.json"; }
(($(finish "$WORK/slow") > 64440)) || fail "a slow link did not slow the all-reduce: $(finish "$WORK/slow")"
busy() { awk -F, -v l="$2" '$1 == l {print $4}' "$1/links.csv"; }
plain_busy=$(busy "$WORK/plain-analytical-congestion-aware" "npu3->npu4")
slow_busy=$(busy "$WORK/slow" "npu3->npu4")
other_busy=$(busy "$WORK/slow" "npu2->npu3")
# Serialization of each message doubles (up to truncation to whole ns).
((slow_busy >= 2 * plain_busy - 64 && slow_busy <= 2 * plain_busy + 64)) ||
  fail "npu3->npu4 busy $slow_busy ns, expected about 2 x $plain_busy"
((other_busy == plain_busy)) || fail "npu2->npu3 busy changed: $other_busy vs $plain_busy"

# snr et timeline shares the option.
"$SNR" et timeline "$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --network-configuration="$A/network/analytical/Ring_8npus.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" \
  --perturbation-configuration="$WORK/slow_link.json" -o "$WORK/tl.json" >"$WORK/tl.txt"
expect_contains "$WORK/tl.txt" "finish $(finish "$WORK/slow") ns"

# A compute straggler on a collective-only trace changes nothing.
echo '{"compute": [{"npu": 5, "slowdown": 3}]}' > "$WORK/compute.json"
run_sim analytical-congestion-aware "$WORK/comp" --perturbation-configuration="$WORK/compute.json" > "$WORK/comp.txt"
expect_contains "$WORK/comp.txt" "sys[5] finished, 64440 cycles"

# Bad files: the error names the file and the key; nothing is written.
bad() {  # json expected-text
  echo "$1" > "$WORK/bad.json"
  expect_fail run_sim analytical-congestion-aware "$WORK/bad-out" --perturbation-configuration="$WORK/bad.json"
  expect_contains "$WORK/expect_fail.out" "bad.json"
  expect_contains "$WORK/expect_fail.out" "$2"
  [[ ! -e "$WORK/bad-out" ]] || fail "output written despite a bad perturbation file"
}
bad '{"compute": [{"npu": 8, "slowdown": 2}]}' "compute[0].npu: NPU 8 does not exist (the network has 8 NPUs)"
bad '{"links": [{"src": 1, "dst": 3, "bandwidth_factor": 0.5}]}' "links[0]: NPUs 1 and 3 are not neighbours"
bad '{"compute": [{"npu": 1, "slowdown": 0}]}' "compute[0].slowdown: 0 is out of range"
bad '{"stragglers": []}' "unknown key 'stragglers'"
bad '{"links": [{"src": 1, "dst": 2, "bandwidth": 0.5}]}' "links[0]: unknown key 'bandwidth'"
expect_fail run_sim analytical-congestion-aware "$WORK/bad-out" --perturbation-configuration="$WORK/missing.json"
expect_contains "$WORK/expect_fail.out" "missing.json"

# A straggler in a data-parallel step: its gradient all-reduces reach the
# NPUs at different times. Under LIFO a collective's chunks share one
# priority (ASTRA-sim's), so the NPUs still run them in the same order:
# ASTRA-sim (518bd51, congestion-aware) on these traces with NPU 5's compute
# times tripled by hand finishes NPU 0 at 3,671,890 ns and NPU 5 at
# 3,694,440 (snr stalled here while each chunk had a priority of its own).
# FIFO runs too, and the straggler sets the pace.
"$SNR" et generate --pattern dp --npus 8 --layers 4 --compute-us 100 -o "$WORK/dp" >/dev/null
echo '{"compute": [{"npu": 5, "slowdown": 3.0}]}' >"$WORK/straggler.json"
dp_sim() {  # system out
  "$SNR" sim --workload-configuration="$WORK/dp" --system-configuration="$1" \
    --network-configuration="$A/network/analytical/Ring_8npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" \
    --perturbation-configuration="$WORK/straggler.json"
}
dp_sim "$A/system/native_collectives/Ring_4chunks.json" >"$WORK/lifo.txt"
expect_contains "$WORK/lifo.txt" "sys[0] finished, 3671890 cycles"
expect_contains "$WORK/lifo.txt" "sys[5] finished, 3694440 cycles"
sed 's/"LIFO"/"FIFO"/' "$A/system/native_collectives/Ring_4chunks.json" >"$WORK/fifo.json"
dp_sim "$WORK/fifo.json" >"$WORK/fifo.txt"
# NPU 5: 4 forward layers of 300 us and 4 backward of 600 us, then the last all-reduce.
expect_contains "$WORK/fifo.txt" "sys[5] finished"
t5=$(sed -n 's/^sys\[5\] finished, \([0-9]*\) cycles.*/\1/p' "$WORK/fifo.txt")
((t5 > 3600000 && t5 < 3800000)) || fail "straggler step $t5 ns"

# One all-reduce on three dimensions of 2 with NPU 5's links slower: a chunk's
# all-gather back through the middle dimension and the other chunk's
# reduce-scatter into it queue there in different orders on different NPUs.
# With one active chunk the run stalls under FIFO too, and the error says
# why; with as many active chunks as splits it runs.
"$SNR" et generate --pattern allreduce --npus 8 --layers 1 --size 1MiB -o "$WORK/ar3d" >/dev/null
printf '%s\n' 'topology: [ Ring, Ring, Ring ]' 'npus_count: [ 2, 2, 2 ]' 'bandwidth: [ 50, 50, 50 ]' \
  'latency: [ 500, 500, 500 ]' >"$WORK/ring3d.yml"
echo '{"npu_links": [{"npu": 5, "bandwidth_factor": 0.5}]}' >"$WORK/slow5.json"
ar3d_sim() {  # active-chunks
  cat >"$WORK/ar3d-sys.json" <<JSON
{"scheduling-policy": "FIFO", "endpoint-delay": 10, "active-chunks-per-dimension": $1,
 "preferred-dataset-splits": 2, "all-reduce-implementation": ["ring", "ring", "ring"],
 "all-gather-implementation": ["ring", "ring", "ring"], "reduce-scatter-implementation": ["ring", "ring", "ring"],
 "all-to-all-implementation": ["ring", "ring", "ring"], "collective-optimization": "localBWAware",
 "local-mem-bw": 1600}
JSON
  "$SNR" sim --workload-configuration="$WORK/ar3d" --system-configuration="$WORK/ar3d-sys.json" \
    --network-configuration="$WORK/ring3d.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" \
    --perturbation-configuration="$WORK/slow5.json"
}
expect_fail ar3d_sim 1
expect_contains "$WORK/expect_fail.out" "only 1 of the 2 chunks run at a time"
expect_contains "$WORK/expect_fail.out" "active-chunks-per-dimension at least preferred-dataset-splits"
ar3d_sim 2 >"$WORK/ar3d.txt"
expect_contains "$WORK/ar3d.txt" "sys[5] finished"
echo "OK"
