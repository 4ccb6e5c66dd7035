#!/usr/bin/env bash
# A dragonfly from its blueprint through the CLI: written and read back,
# simulated on the backends that route over any graph (noc, and ns-3 when
# built), refused by the analytical translation, which takes a tree of
# switch tiers, with a message naming the lateral link; blueprint
# parameters out of range refused.
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
if [[ ! -d "$A" ]]; then echo "SKIP: $A not present"; exit 77; fi

# 3 groups of 2 routers, one host per router, one global link per router.
"$SNR" infra blueprint dragonfly --set a=2 --set p=1 --set h=1 --set link_latency_ns=100 -o "$WORK/df.yaml" >/dev/null
"$SNR" infra check "$WORK/df.yaml" >"$WORK/check.txt"
expect_contains "$WORK/check.txt" "ok (42 nodes, 42 edges)"
"$SNR" infra query "$WORK/df.yaml" --hops >"$WORK/hops.json"
python3 - "$WORK/hops.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))["hops"]
# Host xpus 5 + 3S hops apart over S routers: same group or a global link's
# two ends (S = 2), one end on it (S = 3), local-global-local (S = 4).
assert h == {"pairs_by_hops": {"11": 6, "14": 6, "17": 3}, "unreachable_pairs": 0}, h
PY
"$SNR" infra blueprint single-tier --set hosts=6 --set link_latency_ns=100 -o "$WORK/flat.yaml" >/dev/null

"$SNR" et generate --pattern allreduce --npus 6 --layers 1 --size 1MiB -o "$WORK/ar" >/dev/null
sim() {  # infragraph backend [extra...]
  "$SNR" sim --workload-configuration="$WORK/ar" --infragraph="$1" --network-backend="$2" \
    --system-configuration="$A/system/native_collectives/Ring_4chunks.json" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" "${@:3}"
}
finish() { sed -n 's/.*"finish_ns": \([0-9]*\).*/\1/p' "$1/summary.json"; }
sim "$WORK/df.yaml" noc -o "$WORK/noc" >"$WORK/noc.txt"
[[ $(grep -c " finished, " "$WORK/noc.txt") == 6 ]] || fail "not every NPU finished on the dragonfly"
sim "$WORK/flat.yaml" noc -o "$WORK/flat" >/dev/null
# The ring's steps cross up to four routers and share global links: slower
# than the same six hosts on one switch with the same links.
(( $(finish "$WORK/noc") > $(finish "$WORK/flat") )) ||
  fail "dragonfly $(finish "$WORK/noc") ns is not slower than one switch $(finish "$WORK/flat") ns"
if "$SNR" version --json | grep -q '"ns3"'; then
  sim "$WORK/df.yaml" ns3 -o "$WORK/ns3" >/dev/null
  (( $(finish "$WORK/ns3") > 0 )) || fail "ns-3 run on the dragonfly did not finish"
fi

# The analytical backends would see one flat switch: refused, naming the link.
expect_fail sim "$WORK/df.yaml" analytical-congestion-aware
expect_contains "$WORK/expect_fail.out" "router.0 and router.1 are both tier-1 switches joined by a link"
expect_contains "$WORK/expect_fail.out" "Use --network-backend noc or ns3"
# Parameters out of range are refused before anything is written.
expect_fail "$SNR" infra blueprint dragonfly --set groups=100 -o "$WORK/bad.yaml"
expect_contains "$WORK/expect_fail.out" "parameter 'groups': 100 is out of range [0, 9]"
expect_fail "$SNR" infra blueprint dragonfly --set p=3 --set nics_per_host=2 -o "$WORK/bad.yaml"
expect_contains "$WORK/expect_fail.out" "2 does not divide p = 3 terminal ports"
expect_fail "$SNR" infra blueprint torus-rack --set y=2 -o "$WORK/bad.yaml"
expect_contains "$WORK/expect_fail.out" "2 is not a torus ring"
expect_fail "$SNR" infra blueprint torus-rack --set ici_gbps=0 -o "$WORK/bad.yaml"
expect_contains "$WORK/expect_fail.out" "'ici_gbps': 0 is out of range"
[[ ! -e "$WORK/bad.yaml" ]] || fail "a refused blueprint left a file"
echo PASS
