#!/usr/bin/env bash
# One description, every backend: the 1 MiB ring all-reduce on the 8 GPUs
# of clos-8gpu.yaml (seed 003 §5.5) on the analytical (congestion-unaware
# and -aware), NoC-level (noc) and packet-level (ns3) network backends, all
# from the same InfraGraph file, with the same trace and system.json.
# Prints a table (completion, bus bandwidth, the α–β figure of the
# collective plan, events, wall time) and writes OUT_DIR/results.json.
#
# Plans: the analytical translation turns the Clos into two Switch
# dimensions [2, 4] (leaf, spine), on which collectives run hierarchically;
# noc and ns3 plan one flat ring of 8 by default. So that every backend is
# also seen on the same plan, noc and ns3 run a second time with
# `logical_dims: [2, 4]` added to their translation, and noc a third time
# with ns-3's packets (1,000 payload + 30 header bytes per segment).
#
# Usage: compare_backends.sh [OUT_DIR]   (SNR: the snr binary, default: on
# PATH, else build/snr of this repository). Rows of a backend this snr was
# built without (ns3) say so instead of a time.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
SNR="${SNR:-$(command -v snr || echo "$here/../../../build/snr")}"
out="${1:-$(mktemp -d)}"
mkdir -p "$out"
description="$here/clos-8gpu.yaml"

"$SNR" et generate --npus 8 -o "$out/trace" --pattern allreduce --layers 1 --size 1MiB >/dev/null
has_ns3=0
if "$SNR" version --json | grep -q '"ns3"'; then has_ns3=1; fi

rows="$out/rows.tsv"
: >"$rows"
# run NAME BACKEND PLAN NETWORK_OPTIONS...
run() {
  local name="$1" backend="$2" plan="$3"
  shift 3
  local start end
  start=$(date +%s%N)
  "$SNR" sim --workload-configuration "$out/trace" --system-configuration "$here/system.json" \
    --remote-memory-configuration "$here/remote_memory.json" --network-backend "$backend" "$@" \
    -o "$out/$name" >"$out/$name.log"
  end=$(date +%s%N)
  printf '%s\t%s\t%s\t%s\n' "$name" "$backend" "$plan" "$(((end - start) / 1000000))" >>"$rows"
}

# Straight from the description.
run unaware analytical-congestion-unaware "2x4" --infragraph "$description"
run aware analytical-congestion-aware "2x4" --infragraph "$description"
run noc noc "8" --infragraph "$description"
if ((has_ns3)); then run ns3 ns3 "8" --infragraph "$description"; fi

# The same translations, planned as the analytical backends plan (and noc
# with ns-3's packet sizes).
"$SNR" infra translate "$description" --backend noc -o "$out/noc-files" >/dev/null
cp "$out/noc-files/noc.network.yaml" "$out/noc-2x4.yaml"
echo "logical_dims: [2, 4]" >>"$out/noc-2x4.yaml"
run noc-2x4 noc "2x4" --network-configuration "$out/noc-2x4.yaml"
sed -e 's/^segment_bytes: .*/segment_bytes: 1000/' -e 's/^segment_header_bytes: .*/segment_header_bytes: 30/' \
  "$out/noc-files/noc.network.yaml" >"$out/noc-ns3-packets.yaml"
run noc-ns3-packets noc "8" --network-configuration "$out/noc-ns3-packets.yaml"
if ((has_ns3)); then
  "$SNR" infra translate "$description" --backend ns3 -o "$out/ns3-files" >/dev/null
  cp "$out/ns3-files/ns3.network.yaml" "$out/ns3-2x4.yaml"
  echo "logical_dims: [2, 4]" >>"$out/ns3-2x4.yaml"
  run ns3-2x4 ns3 "2x4" --network-configuration "$out/ns3-2x4.yaml"
fi

python3 - "$out" "$has_ns3" <<'PY'
import json, sys
out, has_ns3 = sys.argv[1], sys.argv[2] == "1"
size_bytes, npus = 1048576, 8
bytes_per_ns = 100e9 / 8 / 1e9  # every fabric link: 100 Gb/s
link_ns = 200                     # every fabric link: 200 ns
# The α–β figure of each plan: per message, its hops' latency plus its
# bytes over the link bandwidth once (PCIe inside a host: 512 Gb/s, 0 ns,
# left out); a step lasts as long as its slowest message.
alpha_beta_ns = {
    # Flat ring: 2(n-1) steps of size/n; the slowest message of every step
    # crosses a spine, 4 links.
    "8": 2 * (npus - 1) * (4 * link_ns + size_bytes / npus / bytes_per_ns),
    # Two dimensions as the analytical backends plan them (ASTRA-sim's
    # baseline: an all-reduce of the whole size on each dimension): on the
    # leaf dimension 2 steps of size/2 over 2 links, then on the spine
    # dimension 6 steps of size/4 over 4 links.
    "2x4": 2 * (2 * link_ns + size_bytes / 2 / bytes_per_ns) + 6 * (4 * link_ns + size_bytes / 4 / bytes_per_ns),
}
labels = {"unaware": "analytical-congestion-unaware", "aware": "analytical-congestion-aware", "noc": "noc",
          "ns3": "ns3", "noc-2x4": "noc, logical_dims [2, 4]", "ns3-2x4": "ns3, logical_dims [2, 4]",
          "noc-ns3-packets": "noc, ns-3's packets (1,000 + 30 B)"}
results = {}
for line in open(f"{out}/rows.tsv"):
    name, backend, plan, wall_ms = line.split()
    summary = json.load(open(f"{out}/{name}/summary.json"))
    finish_ns = summary["finish_ns"]
    results[name] = {
        "backend": backend, "plan": plan, "finish_ns": finish_ns,
        # Bus bandwidth as NCCL defines it for all-reduce: size / time x 2(n-1)/n.
        "busbw_gbps": size_bytes * 8 / finish_ns * 2 * (npus - 1) / npus,
        "alpha_beta_ns": alpha_beta_ns[plan], "events": summary["events"], "wall_s": int(wall_ms) / 1000,
        "fct_max_ns": summary.get("flows", {}).get("fct_max_ns"),
    }
json.dump(results, open(f"{out}/results.json", "w"), indent=2)
print("| backend | plan | completion (µs) | bus bandwidth (Gb/s) | α–β (µs) | vs α–β | events | wall (s) |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
order = ["unaware", "aware", "noc", "ns3", "noc-ns3-packets", "noc-2x4", "ns3-2x4"]
for name in order:
    if name not in results:
        print(f"| {labels[name]} | | not built | | | | | |")
        continue
    r = results[name]
    plan = "flat ring of 8" if r["plan"] == "8" else "2 x 4 (leaf, spine)"
    print(f"| {labels[name]} | {plan} | {r['finish_ns'] / 1000:.2f} | {r['busbw_gbps']:.2f} | "
          f"{r['alpha_beta_ns'] / 1000:.2f} | {100 * (r['finish_ns'] / r['alpha_beta_ns'] - 1):+.1f}% | "
          f"{r['events']:,} | {r['wall_s']:.2f} |")
PY
