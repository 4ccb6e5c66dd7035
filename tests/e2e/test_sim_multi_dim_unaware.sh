#!/usr/bin/env bash
# Multi-dimensional networks on the congestion-unaware backend, against
# ASTRA-sim's analytical congestion-unaware binary (snapshot 518bd51) on the
# same files:
#  - a message between NPUs apart in more than one dimension pays only the
#    first of them (ASTRA-sim's MultiDimTopology::send), said in a note;
#    `multi-dim-delay: every-dimension` charges each dimension crossed;
#  - oneRing's ring over all 8 NPUs of FullyConnected 4 x Ring 2: 20,480 ns
#    there and here (51,560 when every dimension is charged);
#  - a tensor-parallel x data-parallel job with groups of 2 and of 4 on
#    Ring 2 x Switch 4, lists of two algorithms: groups smaller than the
#    system fall back to ring: 561,992 ns there and here (a shard per rank in
#    the all-gathers; 572,972 when they gathered whole buffers);
#  - doubleBinaryTree alternates its two trees in chunk creation order: on
#    Ring 2 x Switch 4 (2 active chunks, baseline) NPUs 0, 3, 4, 7 finish at
#    53,149 ns and the others at 47,257 there and here (before, NPUs 0-3
#    at 47,257 and 4-7 at 53,149);
#  - a list shorter than the network's dimensions runs its last algorithm in
#    the rest here, and a note says ASTRA-sim does not.
source "$(dirname "$0")/lib.sh"
require_data astra-sim/workload/microbenchmarks/all_reduce/8npus_1MB
MEM="$DATA/astra-sim/remote_memory/analytical/no_memory_expansion.json"
AR8="$DATA/astra-sim/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce"
sim() {  # system network workload [more options]
  local system=$1 network=$2 workload=$3
  shift 3
  "$SNR" sim --network-backend=analytical-congestion-unaware --workload-configuration="$workload" \
    --system-configuration="$system" --network-configuration="$network" --remote-memory-configuration="$MEM" "$@"
}
system() {  # policy all-reduce-list other-lists
  echo "{\"scheduling-policy\": \"$1\", \"endpoint-delay\": 10, \"active-chunks-per-dimension\": 1,
 \"preferred-dataset-splits\": 4, \"collective-optimization\": \"localBWAware\", \"local-mem-bw\": 1600,
 \"all-reduce-implementation\": [$2], \"all-gather-implementation\": [$3],
 \"reduce-scatter-implementation\": [$3], \"all-to-all-implementation\": [$3]}"
}

printf 'topology: [FullyConnected, Ring]\nnpus_count: [4, 2]\nbandwidth: [100, 25]\nlatency: [20, 1000]\n' \
  >"$WORK/f4r2.yml"
system LIFO '"oneRing"' '"oneRing"' >"$WORK/one_ring.json"
sim "$WORK/one_ring.json" "$WORK/f4r2.yml" "$AR8" >"$WORK/one_ring.txt" 2>"$WORK/one_ring.err"
for r in 0 1 2 3 4 5 6 7; do expect_contains "$WORK/one_ring.txt" "sys[$r] finished, 20480 cycles"; done
expect_contains "$WORK/one_ring.err" "messages went between NPUs apart in more than one network dimension"
cp "$WORK/f4r2.yml" "$WORK/f4r2_every.yml"
echo "multi-dim-delay: every-dimension" >>"$WORK/f4r2_every.yml"
sim "$WORK/one_ring.json" "$WORK/f4r2_every.yml" "$AR8" >"$WORK/every.txt" 2>"$WORK/every.err"
expect_contains "$WORK/every.txt" "sys[0] finished, 51560 cycles"
if grep -q "apart in more than one" "$WORK/every.err"; then fail "every-dimension still notes the first-dimension rule"; fi
echo "multi-dim-delay: sum" >>"$WORK/f4r2.yml"
expect_fail sim "$WORK/one_ring.json" "$WORK/f4r2.yml" "$AR8"
expect_contains "$WORK/expect_fail.out" "multi-dim-delay (line 5) must be first-dimension"

"$SNR" et generate --pattern hybrid --npus 8 --layers 2 --size 1MiB --tp-size 2 -o "$WORK/hybrid" >/dev/null
printf 'topology: [Ring, Switch]\nnpus_count: [2, 4]\nbandwidth: [200, 50]\nlatency: [50, 500]\n' >"$WORK/r2s4.yml"
system LIFO '"direct", "halvingDoubling"' '"direct", "halvingDoubling"' >"$WORK/two.json"
sim "$WORK/two.json" "$WORK/r2s4.yml" "$WORK/hybrid" --comm-group-configuration="$WORK/hybrid.comm_groups.json" \
  >"$WORK/hybrid.txt"
for r in 0 1 2 3 4 5 6 7; do expect_contains "$WORK/hybrid.txt" "sys[$r] finished, 561992 cycles"; done

sed -e 's/"active-chunks-per-dimension": 1/"active-chunks-per-dimension": 2/' \
  -e 's/"localBWAware"/"baseline"/' <(system LIFO '"doubleBinaryTree", "doubleBinaryTree"' '"ring", "ring"') \
  >"$WORK/dbt.json"
sim "$WORK/dbt.json" "$WORK/r2s4.yml" "$AR8" >"$WORK/dbt.txt"
for r in 0 3 4 7; do expect_contains "$WORK/dbt.txt" "sys[$r] finished, 53149 cycles"; done
for r in 1 2 5 6; do expect_contains "$WORK/dbt.txt" "sys[$r] finished, 47257 cycles"; done

system LIFO '"ring"' '"ring"' >"$WORK/short.json"
sim "$WORK/short.json" "$WORK/r2s4.yml" "$AR8" >/dev/null 2>"$WORK/short.err"
expect_contains "$WORK/short.err" "all-reduce-implementation lists 1 algorithm(s) for a 2-dimensional network"
echo PASS
