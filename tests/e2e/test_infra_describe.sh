#!/usr/bin/env bash
# snr infra expand / check / query / blueprint / draw through the CLI on the
# shared InfraGraph examples: counts, older-schema and malformed rejections,
# JSON queries, blueprints written back as InfraGraph, and SVG drawing.
source "$(dirname "$0")/lib.sh"
I="$DATA/infragraph/examples"
if [[ ! -d "$I" ]]; then echo "SKIP: $I not present"; exit 77; fi

# expand --json counts (hand counts in src/infra/graph_test.cc).
"$SNR" infra expand "$I/astra-sim-service/clos_fabric.yaml" --json > "$WORK/clos.json"
expect_contains "$WORK/clos.json" '"nodes": 1232'
expect_contains "$WORK/clos.json" '"edges": 1536'
"$SNR" infra expand "$I/infragraph-pr48/SYS-221H-TNR.json" --json > "$WORK/sys.json"
expect_contains "$WORK/sys.json" '"nodes": 23'
expect_contains "$WORK/sys.json" '"edges": 22'
"$SNR" infra expand "$I/infragraph-gh-pages/dgx_cx5_qsfp_composed.yaml" --list > "$WORK/dgx.txt"
expect_contains "$WORK/dgx.txt" "edge dgx_h100.0.cx5_100gbe.7.port.0 dgx_h100.0.cx5_100gbe.7.qsfp28.0.electrical_port.0 cx5_100gbe/electrical"

# check: every current-schema example passes, the older schema is named as such.
"$SNR" infra check "$I"/infragraph-gh-pages/*.yaml "$I"/infragraph-pr48/* "$I"/astra-sim-service/*.yaml > "$WORK/check.txt"
[[ $(grep -c ': ok (' "$WORK/check.txt") == 8 ]] || { cat "$WORK/check.txt"; fail "not all 8 examples ok"; }
expect_fail "$SNR" infra check "$I/infragraph-docs-older-schema/dgxa100.yaml"
expect_contains "$WORK/expect_fail.out" "older InfraGraph schema"
for f in "$SRC"/src/formats/infragraph/testdata/malformed/*.yaml; do
  expect_fail "$SNR" infra check "$f"
  expect_contains "$WORK/expect_fail.out" "$(sed -n '1s/^# expect: //p' "$f")"
done

# query: JSON answers.
"$SNR" infra query "$I/infragraph-gh-pages/closfabric.yaml" --path host.0.xpu.0 host.3.xpu.1 \
  --neighbours spinesw.0.port.0 --hops --bisection > "$WORK/q.json"
python3 - "$WORK/q.json" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))
assert q["nodes"] == 151 and q["edges"] == 164 and q["ranks"] == 8, q
assert q["path"]["hops"] == 14, q["path"]
assert q["path"]["nodes"][0] == "host.0.xpu.0" and q["path"]["nodes"][-1] == "host.3.xpu.1"
assert {n["node"] for n in q["neighbours"]["spinesw.0.port.0"]} == {"spinesw.0.asic.0", "leafsw.0.port.2"}
h = q["hops"]
assert sum(h["pairs_by_hops"].values()) == 28 and h["unreachable_pairs"] == 0, h
assert h["pairs_by_hops"]["2"] == 4, h  # the two xpus of a host share the NVLink switch
assert q["bisection"]["bits_per_s"] == 400e9, q["bisection"]  # 4 ranks' 2 hosts x 2 nics x 100 Gb/s
PY
expect_fail "$SNR" infra query "$I/infragraph-gh-pages/closfabric.yaml" --neighbours host.9.xpu.0

# blueprint: written back as InfraGraph that reads and expands; strict parameters.
"$SNR" infra blueprint clos-fat-tree --set k=8 --set levels=3 -o "$WORK/ft.yaml" > /dev/null
"$SNR" infra expand "$WORK/ft.yaml" --json > "$WORK/ft.json"
expect_contains "$WORK/ft.json" '"device_instances": 208'  # 128 hosts + 80 switches
"$SNR" infra blueprint single-tier --set hosts=4 -o "$WORK/st.json" > /dev/null
"$SNR" infra check "$WORK/st.json" > /dev/null
expect_fail "$SNR" infra blueprint clos-fat-tree --set radix=8 -o "$WORK/bad.yaml"
expect_contains "$WORK/expect_fail.out" "unknown parameter 'radix'"
[[ ! -e "$WORK/bad.yaml" ]] || fail "a failed blueprint left a file"
# A fabric no verb could expand is refused before it is written; a parameter set twice is a contradiction.
expect_fail "$SNR" infra blueprint clos-fat-tree --set k=1000 --set levels=3 -o "$WORK/bad.yaml"
expect_contains "$WORK/expect_fail.out" "instance 'host' expands to 750000000 nodes or more; at most 67108864"
[[ ! -e "$WORK/bad.yaml" ]] || fail "an oversized blueprint was written"
expect_fail "$SNR" infra blueprint clos-fat-tree --set k=8 --set k=16
expect_contains "$WORK/expect_fail.out" "parameter 'k' is set twice ('8' and '16')"
"$SNR" infra blueprint --list > "$WORK/list.txt"
expect_contains "$WORK/list.txt" "noc-gpu"

# draw: DOT always; SVG when Graphviz is installed.
"$SNR" infra draw "$WORK/ft.yaml" -o "$WORK/ft.dot" > "$WORK/draw.txt"
expect_contains "$WORK/draw.txt" "tier level"
expect_contains "$WORK/ft.dot" "tier_2 (switch, switch)"
if command -v dot > /dev/null; then
  "$SNR" infra draw "$I/infragraph-gh-pages/closfabric.yaml" -o "$WORK/clos.svg" > /dev/null
  expect_contains "$WORK/clos.svg" "<svg"
  expect_contains "$WORK/clos.svg" "leafsw.3"
fi
echo OK
