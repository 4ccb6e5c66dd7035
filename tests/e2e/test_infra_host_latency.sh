#!/usr/bin/env bash
# snr infra translate --backend analytical charges a fabric hop the way
# out of both hosts: three one-GPU hosts joined NIC to NIC by 500 ns
# wires, each GPU 150 ns of PCIe from its NIC, are one FullyConnected
# dimension of 150 + 500 + 150 ns per hop, and network.yml says so. The
# same hosts with a PCIe link that states no latency get 500 ns, and
# translation.json lists that link.
source "$(dirname "$0")/lib.sh"
write() {  # FILE PCIE_PHYSICAL
  cat >"$1" <<YAML
name: triangle
devices:
- name: host
  components: [{name: xpu, count: 1, choice: xpu}, {name: nic, count: 1, choice: nic}]
  links: [{name: pcie, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 512}$2}}]
  edges: [{ep1: {component: xpu}, ep2: {component: nic}, scheme: one2one, link: pcie}]
links: [{name: wire, physical: {bandwidth: {choice: gigabits_per_second, gigabits_per_second: 100}, latency: {choice: ns, ns: 500}}}]
instances: [{name: h, device: host, count: 3}]
edges:
- {ep1: {instance: 'h[0]', component: nic}, ep2: {instance: 'h[1]', component: nic}, scheme: one2one, link: wire}
- {ep1: {instance: 'h[1]', component: nic}, ep2: {instance: 'h[2]', component: nic}, scheme: one2one, link: wire}
- {ep1: {instance: 'h[2]', component: nic}, ep2: {instance: 'h[0]', component: nic}, scheme: one2one, link: wire}
YAML
}
write "$WORK/slow_pcie.yaml" ", latency: {choice: ns, ns: 150}"
"$SNR" infra translate "$WORK/slow_pcie.yaml" --backend analytical -o "$WORK/slow" >/dev/null
expect_contains "$WORK/slow/network.yml" "latency: [ 800 ]"
expect_contains "$WORK/slow/network.yml" "latency includes 2 × 150 ns from an NPU out of its host"
write "$WORK/bare_pcie.yaml" ""
"$SNR" infra translate "$WORK/bare_pcie.yaml" --backend analytical -o "$WORK/bare" >/dev/null
expect_contains "$WORK/bare/network.yml" "latency: [ 500 ]"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["links_without_latency"] == ["host/pcie"]' \
  "$WORK/bare/translation.json" || fail "the PCIe link without a latency is not listed"
echo ok
