#!/usr/bin/env bash
# An analytical run of an InfraGraph description equals the same run from the
# hand-written ASTRA-sim network YAML, byte for byte: snr infra translate
# --backend analytical, then snr sim on both with the same workload and system,
# and snr sim --infragraph on the description itself.
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
if [[ ! -d "$A" ]]; then echo "SKIP: $A not present"; exit 77; fi
EX="$SRC/examples/infragraph/analytical"
MEM="$A/remote_memory/analytical/no_memory_expansion.json"

# same_run NAME WORKLOAD SYSTEM HAND_NETWORK INFRAGRAPH_FILE BACKEND
same_run() {
  local name="$1" workload="$2" system="$3" hand="$4" infra="$5" backend="$6"
  "$SNR" infra translate "$infra" --backend analytical -o "$WORK/$name" > /dev/null
  for net in hand translated; do
    local file="$hand"
    [[ "$net" == translated ]] && file="$WORK/$name/network.yml"
    "$SNR" sim --workload-configuration="$workload" --system-configuration="$system" \
      --network-configuration="$file" --remote-memory-configuration="$MEM" \
      --network-backend="$backend" -o "$WORK/$name.$net" > "$WORK/$name.$net.txt"
  done
  "$SNR" sim --workload-configuration="$workload" --system-configuration="$system" --infragraph="$infra" \
    --remote-memory-configuration="$MEM" --network-backend="$backend" -o "$WORK/$name.direct" > "$WORK/$name.direct.txt"
  for net in translated direct; do
    cmp "$WORK/$name.hand.txt" "$WORK/$name.$net.txt" || fail "$name: stdout of $net differs"
    for f in summary.json npus.csv links.csv timeline.json; do
      cmp "$WORK/$name.hand/$f" "$WORK/$name.$net/$f" || fail "$name: $f of $net differs"
    done
  done
  # The translation lies beside the results and inputs.json names it, so a
  # re-run reads the same network.
  cmp "$WORK/$name/network.yml" "$WORK/$name.direct/network.yml" || fail "$name: network.yml beside the results differs"
  [[ -f "$WORK/$name.direct/translation.json" ]] || fail "$name: translation.json missing beside the results"
  expect_contains "$WORK/$name.direct/inputs.json" "$name.direct/network.yml"
}

AR8="$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce"

# Ring: the translator finds the ring and writes Ring_8npus.yml's numbers.
same_run ring "$AR8" "$A/system/native_collectives/Ring_4chunks.json" "$A/network/analytical/Ring_8npus.yml" \
  "$EX/ring-8npus.yaml" analytical-congestion-unaware
expect_contains "$WORK/ring/network.yml" "topology: [ Ring ]"
expect_contains "$WORK/ring/network.yml" "bandwidth: [ 50 ]"
expect_contains "$WORK/ring.translated.txt" "sys[7] finished, 64440 cycles"
same_run ring_aware "$AR8" "$A/system/native_collectives/Ring_4chunks.json" "$A/network/analytical/Ring_8npus.yml" \
  "$EX/ring-8npus.yaml" analytical-congestion-aware

# Switch: an NVSwitch domain becomes HGX-H100-validated.yml.
same_run hgx "$AR8" "$A/system/native_collectives/HGX-H100-validated.json" \
  "$A/network/analytical/HGX-H100-validated.yml" "$EX/hgx-h100.yaml" analytical-congestion-aware
expect_contains "$WORK/hgx/network.yml" "topology: [ Switch ]"
expect_contains "$WORK/hgx.translated.txt" "sys[0] finished, 57426 cycles"

# Two dimensions: a two-level Clos blueprint decomposes into [Switch 2, Switch 4].
"$SNR" infra blueprint clos-fat-tree --set k=4 --set levels=2 --set tier0_gbps=107.3741824 \
  --set tier1_gbps=107.3741824 --set link_latency_ns=500 -o "$WORK/clos.yaml" > /dev/null
for backend in analytical-congestion-unaware analytical-congestion-aware; do
  same_run "clos_$backend" "$AR8" "$EX/ring-2dim.system.json" "$EX/clos-8gpu.network.yml" "$WORK/clos.yaml" "$backend"
done
expect_contains "$WORK/clos_analytical-congestion-aware/network.yml" "npus_count: [ 2, 4 ]"
expect_contains "$WORK/clos_analytical-congestion-aware/network.yml" "latency: [ 500, 1000 ]"

# A torus of direct links (the torus-rack blueprint, InfraGraph's
# IronwoodRack: 64 XPUs in 4x4x4 on 1,400 Gb/s ICI) is three Ring dimensions.
"$SNR" infra blueprint torus-rack -o "$WORK/torus.yaml" > /dev/null
printf 'topology: [ Ring, Ring, Ring ]\nnpus_count: [ 4, 4, 4 ]\nbandwidth: [ 162.981450558, 162.981450558, 162.981450558 ]\nlatency: [ 0, 0, 0 ]\n' \
  > "$WORK/torus.hand.yml"
"$SNR" et generate --pattern allreduce --npus 64 --layers 1 --size 1MiB -o "$WORK/ar64" > /dev/null
same_run torus "$WORK/ar64" "$A/system/native_collectives/Ring_4chunks.json" "$WORK/torus.hand.yml" "$WORK/torus.yaml" \
  analytical-congestion-aware
expect_contains "$WORK/torus/network.yml" "torus dimension 2 of 3 (4x4x4)"
expect_contains "$WORK/torus.translated.txt" "sys[63] finished, 10736 cycles"

# A run re-simulated from its directory reads the translated network.
"$SNR" et critical-path "$WORK/ring.direct" > "$WORK/ring.critical.txt" || fail "critical path of an --infragraph run"

# The network comes from exactly one of the two options.
expect_fail "$SNR" sim --workload-configuration="$AR8" --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --remote-memory-configuration="$MEM"
expect_contains "$WORK/expect_fail.out" "--network-configuration FILE or --infragraph FILE"
expect_fail "$SNR" sim --workload-configuration="$AR8" --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --remote-memory-configuration="$MEM" --network-configuration="$A/network/analytical/Ring_8npus.yml" \
  --infragraph="$EX/ring-8npus.yaml"
expect_contains "$WORK/expect_fail.out" "excludes"
"$SNR" infra blueprint noc-gpu -o "$WORK/gpu.yaml" > /dev/null
expect_fail "$SNR" sim --workload-configuration="$AR8" --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
  --remote-memory-configuration="$MEM" --infragraph="$WORK/gpu.yaml"
expect_contains "$WORK/expect_fail.out" "ranked NPUs"

# What does not fit the backend is an error naming the reason.
expect_fail "$SNR" infra translate "$WORK/gpu.yaml" --backend analytical -o "$WORK/gpu"
expect_contains "$WORK/expect_fail.out" "ranked NPUs"
expect_fail "$SNR" infra translate "$EX/ring-8npus.yaml" --backend htsim -o "$WORK/x"
expect_contains "$WORK/expect_fail.out" "unknown backend 'htsim' (translators: analytical, noc, ns3)"
echo OK
