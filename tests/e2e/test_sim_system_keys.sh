#!/usr/bin/env bash
# System configurations as users carry them from earlier ASTRA-sim versions:
# ASTRA-sim 2.0's intra-/inter-dimension-scheduling at the values that run
# (FIFO, baseline) give the reference result unchanged; another value is
# refused naming what runs; a misspelt key, which ASTRA-sim ignores, is
# refused naming the key meant. Every refusal exits non-zero.
source "$(dirname "$0")/lib.sh"
require_data astra-sim
A="$DATA/astra-sim"
sim() {  # SYSTEM_JSON
  "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
    --system-configuration="$1" --network-configuration="$A/network/analytical/Ring_8npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json"
}
with() {  # OUT KEY_VALUE_JSON
  python3 - "$A/system/native_collectives/Ring_4chunks.json" "$2" >"$1" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config.update(json.loads("{" + sys.argv[2] + "}"))
print(json.dumps(config))
PY
}
with "$WORK/old.json" '"intra-dimension-scheduling": "FIFO", "inter-dimension-scheduling": "baseline"'
sim "$WORK/old.json" >"$WORK/old.out"
expect_contains "$WORK/old.out" "sys[0] finished, 64440 cycles"  # ASTRA-sim's reference
with "$WORK/themis.json" '"inter-dimension-scheduling": "themis"'
expect_fail sim "$WORK/themis.json"
expect_contains "$WORK/expect_fail.out" "not modelled by snr: inter-dimension-scheduling 'themis'"
with "$WORK/typo.json" '"local_mem_bw": 50'
expect_fail sim "$WORK/typo.json"
expect_contains "$WORK/expect_fail.out" "unknown key 'local_mem_bw'; did you mean 'local-mem-bw'?"
sed 's/npus_count/npu_count/' "$A/network/analytical/Ring_8npus.yml" >"$WORK/net.yml"
expect_fail "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce" \
  --system-configuration="$A/system/native_collectives/Ring_4chunks.json" --network-configuration="$WORK/net.yml" \
  --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json"
expect_contains "$WORK/expect_fail.out" "did you mean 'npus_count'?"
echo ok
