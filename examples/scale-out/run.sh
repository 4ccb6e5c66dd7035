#!/usr/bin/env bash
# One model from instruction to cluster, in one command: compile the default
# LLM decode step, run it cycle by cycle on 4 chips and export that run as
# Chakra traces, export the chips' network, re-target the trace to M chips
# on a 2-D torus and simulate both systems. Prints the per-chip step time at
# 4 and at M chips and where it goes (compute vs exposed communication).
#
# usage: examples/scale-out/run.sh [--chips M] [--tp T] [--pp P]
#                                  [--perturbation FILE.json] [-o OUT]
#   --chips M          chips of the scaled-out system (default 1024)
#   --tp T, --pp P     tensor-parallel group size and pipeline stages of the
#                      M-chip layout (default: the traced 4-chip group, 1)
#   --perturbation F   also simulate the M chips with stragglers or slow
#                      links (docs/formats/perturbation.md) and show the cost
#   -o OUT             output directory (default scale-out; must not exist)
# The snr binary is $SNR, or `snr` on PATH. See README.md beside this file.
set -euo pipefail

SNR="${SNR:-snr}"
here="$(cd "$(dirname "$0")" && pwd)"
spec="$here/../llm-decode.yaml"
chips=1024
tp=""
pp=1
perturbation=""
out=scale-out

die() {
  echo "run.sh: $*" >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --chips) chips="${2:-}"; shift 2 ;;
    --tp) tp="${2:-}"; shift 2 ;;
    --pp) pp="${2:-}"; shift 2 ;;
    --perturbation) perturbation="${2:-}"; shift 2 ;;
    -o) out="${2:-}"; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (--help lists the options)" ;;
  esac
done
[[ "$chips" =~ ^[1-9][0-9]*$ ]] || die "--chips '$chips': expected a positive integer"
[[ -z "$tp" || "$tp" =~ ^[1-9][0-9]*$ ]] || die "--tp '$tp': expected a positive integer"
[[ "$pp" =~ ^[1-9][0-9]*$ ]] || die "--pp '$pp': expected a positive integer"
[[ -z "$perturbation" || -f "$perturbation" ]] || die "--perturbation '$perturbation': no such file"
[[ -n "$out" ]] || die "-o needs a directory"
[[ ! -e "$out" ]] || die "$out exists; give a new output directory with -o"
mkdir -p "$out"

step() { printf '[scale-out] %s\n' "$*"; }

# 1-2. The decode step, compiled and run cycle by cycle on 4 chips; the run
# is exported as one Chakra rank per chip (the exporter `snr export run.db
# --chakra` uses for recorded windows).
step "compile $(basename "$spec")"
"$SNR" compile "$spec" -o "$out/model" >"$out/compile.log"
step "run it cycle by cycle on 4 chips and export the run as Chakra traces"
"$SNR" run "$out/model" --json --chakra "$out/trace/decode4" >"$out/run4.json" 2>"$out/run4.log"
measured_ns=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); print(r["cycles"] / r["clock_hz"] * 1e9)' \
  "$out/run4.json")

# 3. The chips' network: the 4 chips as the cycle-level run connects them,
# and M chips as a 2-D torus of the same ICI links. The hardware model
# describes up to 256 chips; beyond, the same links form a larger torus.
step "export the network of 4 chips and of $chips chips (2-D torus)"
"$SNR" hw export-network --hw tpu-v4-like --chips 4 -o "$out/net4" >/dev/null
if ((chips <= 256)); then
  "$SNR" hw export-network --hw tpu-v4-like --chips "$chips" --set topology.kind=torus2d -o "$out/net$chips" >/dev/null
else
  "$SNR" hw export-network --hw tpu-v4-like --chips 256 --set topology.kind=torus2d -o "$out/net$chips" >/dev/null
  width=1
  for ((w = 1; w * w <= chips; w++)); do ((chips % w == 0)) && width=$w; done
  sed -i "s/^npus_count: .*/npus_count: [ $((chips / width)), $width ]/" "$out/net$chips/network.yml"
fi
torus=$(sed -n 's/^npus_count: \[ *\([0-9]*\)[, ]*\([0-9]*\) *\]/\1x\2/p' "$out/net$chips/network.yml")

# 4. Re-target the 4-rank trace to M ranks.
step "re-target the trace to $chips chips"
retarget=(--npus "$chips" --pp "$pp")
[[ -n "$tp" ]] && retarget+=(--tp "$tp")
"$SNR" et retarget "$out/trace/decode4" "${retarget[@]}" -o "$out/trace/decode$chips" | sed 's/^/[scale-out]   /'

# 5. Simulate both systems.
sim() {  # NAME TRACE NET [extra snr sim options]
  local groups=()
  [[ -e "$2.comm_groups.json" ]] && groups=(--comm-group-configuration="$2.comm_groups.json")
  "$SNR" sim --workload-configuration="$2" --system-configuration="$3/system.json" \
    --network-configuration="$3/network.yml" --remote-memory-configuration="$3/remote_memory.json" \
    "${groups[@]}" "${@:4}" -o "$out/$1" >"$out/$1.log"
}
step "simulate 4 chips and $chips chips (snr sim)"
sim sim4 "$out/trace/decode4" "$out/net4"
sim "sim$chips" "$out/trace/decode$chips" "$out/net$chips"
[[ -n "$perturbation" ]] && sim "sim$chips-perturbed" "$out/trace/decode$chips" "$out/net$chips" \
  --perturbation-configuration="$perturbation"

# Per chip: the step ends at the chip's finish; compute is its busy compute
# time, the rest is communication it waits for. Mean over chips, slowest chip.
report() {  # LABEL RESULT_DIR
  awk -F, -v label="$1" 'NR > 1 {
      n++; total += $2; compute += $3; exposed += $4; if ($2 > slowest) slowest = $2
    }
    END {
      t = total / n; c = compute / n; e = exposed / n
      printf "  %-38s %10.1f us per chip (slowest %.1f us) = compute %.1f us (%.0f%%) + exposed communication %.1f us (%.0f%%)\n",
        label, t / 1e3, slowest / 1e3, c / 1e3, 100 * c / t, e / 1e3, 100 * e / t
    }' "$2/npus.csv"
}
echo
echo "decode step of $(basename "$spec"), per chip:"
printf '  %-38s %10.1f us per chip (cycle-level snr run)\n' "4 chips, measured" "$(awk -v n="$measured_ns" 'BEGIN {print n / 1e3}')"
report "4 chips, simulated (ring of 4)" "$out/sim4"
report "$chips chips, simulated (torus $torus)" "$out/sim$chips"
[[ -n "$perturbation" ]] && report "$chips chips, $(basename "$perturbation")" "$out/sim$chips-perturbed"
echo
echo "outputs: $out/trace (Chakra), $out/net4 and $out/net$chips (network), $out/sim4 and $out/sim$chips (npus.csv, timeline.json)"
