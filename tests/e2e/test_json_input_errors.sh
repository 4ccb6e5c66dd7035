#!/usr/bin/env bash
# JSON from outside that the parser rejects (a number no double can hold, a
# duplicate key, a syntax error) ends in a clean error naming the file, the
# line and the key, exit status 1, never "internal error".
source "$(dirname "$0")/lib.sh"
A="$DATA/astra-sim"
if [[ ! -d "$A" ]]; then echo "SKIP: $A not present"; exit 77; fi

sim_with_system() {  # system-config
  "$SNR" sim --workload-configuration="$A/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce" \
    --system-configuration="$1" --network-configuration="$A/network/analytical/Ring_4npus.yml" \
    --remote-memory-configuration="$A/remote_memory/analytical/no_memory_expansion.json" -o "$WORK/out"
}

expect_exit_1() {  # the failure is an error the user can act on
  local status=0
  "$@" >"$WORK/err.out" 2>&1 || status=$?
  ((status == 1)) || { cat "$WORK/err.out" >&2; fail "exit $status instead of 1: $*"; }
  if grep -qE 'internal error|json.exception|Sanitizer|runtime error:' "$WORK/err.out"; then
    cat "$WORK/err.out" >&2
    fail "not a clean error: $*"
  fi
}

# "endpoint-delay": 1e400 overflows a double.
sed 's/"endpoint-delay": 10/"endpoint-delay": 1e400/' "$A/system/native_collectives/Ring_4chunks.json" \
  >"$WORK/overflow.json"
grep -q 1e400 "$WORK/overflow.json" || fail "test input not patched"
expect_exit_1 sim_with_system "$WORK/overflow.json"
expect_contains "$WORK/err.out" "$WORK/overflow.json"
expect_contains "$WORK/err.out" "line 3"
expect_contains "$WORK/err.out" "key 'endpoint-delay'"
expect_contains "$WORK/err.out" "number overflow parsing '1e400'"
[[ ! -e "$WORK/out" ]] || fail "output written despite error"

# A key given twice is ambiguous: an error, not "the last one wins".
sed 's/"endpoint-delay": 10,/"endpoint-delay": 10, "endpoint-delay": 20,/' \
  "$A/system/native_collectives/Ring_4chunks.json" >"$WORK/duplicate.json"
expect_exit_1 sim_with_system "$WORK/duplicate.json"
expect_contains "$WORK/err.out" "$WORK/duplicate.json"
expect_contains "$WORK/err.out" "duplicate key 'endpoint-delay'"

# Truncated document.
head -c 60 "$A/system/native_collectives/Ring_4chunks.json" >"$WORK/truncated.json"
expect_exit_1 sim_with_system "$WORK/truncated.json"
expect_contains "$WORK/err.out" "$WORK/truncated.json: line"
