#!/usr/bin/env bash
# Issue 18, the bad-input matrix: every verb that reads a file gets a missing
# file, an empty file, a directory, a truncated file, random bytes and a
# file of the wrong format. Each run must fail cleanly (non-zero exit, no
# crash or sanitizer report), name the file, and leave no output behind.
# Cases of `snr sim` / `snr et timeline` are listed in SIM_VERBS and only
# reported (their readers are being reworked), not failed on.
source "$(dirname "$0")/lib.sh"
require_data pytorch/hta/benchmark_simple_add_et.json.gz pytorch/hta/benchmark_simple_add_trace.json.gz
S="$WORK/samples"
mkdir -p "$S" "$WORK/bad" "$WORK/out"

# --- valid samples of each kind, to truncate ---------------------------------
"$SNR" asm "$SRC/src/record/testdata/ring_exchange.s" -o "$S/ring.elf"
"$SNR" et generate --pattern allreduce --npus 2 -o "$S/ar" >/dev/null
"$SNR" et jsonize "$S/ar.0.et" -o "$S/ar.json" >/dev/null
"$SNR" et synthesize fit "$S/ar" -o "$S/model.json" >/dev/null
cp "$SRC/src/et/convert/testdata/data_parallel.txt" "$S/wl.txt"
cp "$SRC/examples/allgather.yaml" "$S/spec.yaml"
printf 'chips: 2\nhbm:\n  bandwidth: 1TB/s\n' >"$S/hw.yaml"
gzip -dc "$DATA/pytorch/hta/benchmark_simple_add_et.json.gz" >"$S/host.json"
start_device 120 "$S/ring.elf" --chips 4
timeout 120 "$SNR" record --target "127.0.0.1:$port" --elf "$S/ring.elf" --break window_start --count 2000 \
  --quiet -o "$S/ring.snr" >/dev/null 2>&1 || fail "record failed"
wait "$server"
"$SNR" replay "$S/ring.snr" -o "$S/run.db" -q
echo '{"moves": []}' >"$S/moves.json"

# kind -> valid sample to truncate; the "wrong format" sample is another kind.
declare -A SAMPLE=([elf]="$S/ring.elf" [et]="$S/ar.0.et" [etjson]="$S/ar.json" [model]="$S/model.json"
  [text]="$S/wl.txt" [spec]="$S/spec.yaml" [hw]="$S/hw.yaml" [host]="$S/host.json" [snr]="$S/ring.snr"
  [db]="$S/run.db" [moves]="$S/moves.json")
declare -A WRONG=([elf]="$S/spec.yaml" [et]="$S/ring.elf" [etjson]="$S/ring.elf" [model]="$S/ring.elf"
  [text]="$S/ring.elf" [spec]="$S/ring.elf" [hw]="$S/ring.elf" [host]="$S/ring.elf" [snr]="$S/ar.0.et"
  [db]="$S/spec.yaml" [moves]="$S/ring.elf")

# Each row: kind|command with FILE for the input and OUT for an output path.
CASES=(
  "elf|asm FILE -o OUT"
  "elf|disasm FILE"
  "elf|disasm FILE -o OUT"
  "elf|run FILE"
  "elf|device serve FILE --port 0 --once"
  "elf|record --target 127.0.0.1:1 --elf FILE --count 10 -o OUT"
  "spec|compile FILE -o OUT"
  "hw|run $S/ring.elf --hw FILE"
  "snr|snapshot info FILE"
  "snr|snapshot validate FILE"
  "snr|snapshot check FILE"
  "snr|replay FILE -o OUT"
  "snr|rewrite FILE --moves $S/moves.json -o OUT"
  "moves|rewrite $S/ring.snr --moves FILE -o OUT"
  "db|analyze FILE -o OUT --no-verify"
  "db|diff FILE $S/run.db"
  "db|export FILE --perfetto OUT"
  "host|et convert FILE -o OUT"
  "text|et convert --from text FILE -o OUT --npus 2"
  "host|et link --host FILE --device $DATA/pytorch/hta/benchmark_simple_add_trace.json.gz -o OUT"
  "et|et jsonize FILE -o OUT"
  "etjson|et unjsonize FILE -o OUT"
  "et|et validate FILE"
  "et|et visualize FILE -o OUT.dot"
  "et|et synthesize fit FILE -o OUT"
  "model|et synthesize sample FILE --npus 4 -o OUT"
  "et|et synthesize compare FILE $S/ar"
  "et|et retarget FILE --npus 4 -o OUT"
  "et|et critical-path FILE --perfetto OUT"
  "db|export FILE --chakra OUT"
)
SIM_VERBS="sim|et timeline"

make_input() {  # case kind -> path of a bad input of that kind
  local c="$1" kind="$2" f="$WORK/bad/input"
  rm -rf "$f"
  case "$c" in
    missing) ;;
    empty) : >"$f" ;;
    directory) mkdir "$f" ;;
    truncated) head -c $(($(stat -c %s "${SAMPLE[$kind]}") / 2)) "${SAMPLE[$kind]}" >"$f" ;;
    random) head -c 4096 /dev/urandom >"$f" ;;
    wrong) cp "${WRONG[$kind]}" "$f" ;;
  esac
  echo "$f"
}

failures=0
runs=0
for row in "${CASES[@]}"; do
  kind="${row%%|*}"
  template="${row#*|}"
  for c in missing empty directory truncated random wrong; do
    # Half of a YAML or text input can be a valid, shorter one.
    [[ "$c" == truncated && "$kind" =~ ^(text|spec|hw|moves)$ ]] && continue
    input=$(make_input "$c" "$kind")
    rm -rf "$WORK/out" && mkdir "$WORK/out"
    out="$WORK/out/result"
    cmd="${template//FILE/$input}"
    cmd="${cmd//OUT/$out}"
    status=0
    # shellcheck disable=SC2086
    timeout 60 "$SNR" $cmd >"$WORK/run.out" 2>&1 </dev/null || status=$?
    runs=$((runs + 1))
    problem=""
    if ((status == 0)); then
      problem="exit 0"
    elif ((status >= 124)); then
      problem="exit $status (crash or timeout)"
    elif grep -qE 'Sanitizer|runtime error:|internal error' "$WORK/run.out"; then
      problem="crash or internal error"
    elif ! grep -qF "bad/input" "$WORK/run.out"; then
      problem="message does not name the file"
    elif [[ -n "$(ls -A "$WORK/out")" ]]; then
      problem="left output behind: $(ls -A "$WORK/out" | head -3 | tr '\n' ' ')"
    fi
    if [[ -n "$problem" ]]; then
      echo "FAIL [$c] snr $template: $problem" >&2
      sed 's/^/    /' "$WORK/run.out" | head -5 >&2
      failures=$((failures + 1))
    fi
  done
done

# Unwritable output for every verb that writes: the output is checked first.
echo x >"$WORK/plainfile"
for row in "${CASES[@]}"; do
  [[ "$row" == *OUT* ]] || continue
  kind="${row%%|*}"
  template="${row#*|}"
  cmd="${template//FILE/${SAMPLE[$kind]}}"
  cmd="${cmd//OUT/$WORK/plainfile/result}"
  status=0
  # shellcheck disable=SC2086
  timeout 60 "$SNR" $cmd >"$WORK/run.out" 2>&1 </dev/null || status=$?
  runs=$((runs + 1))
  if ((status != 1)) || ! grep -q "plainfile" "$WORK/run.out"; then
    echo "FAIL [unwritable output, exit $status] snr $template" >&2
    sed 's/^/    /' "$WORK/run.out" | head -5 >&2
    failures=$((failures + 1))
  fi
done

# snr sim / et timeline (reported only).
if "$SNR" sim --help >/dev/null 2>&1; then
  for c in missing empty directory random; do
    input=$(make_input "$c" et)
    status=0
    timeout 60 "$SNR" sim --workload-configuration "$input" --system-configuration "$input" \
      --network-configuration "$input" --remote-memory-configuration "$input" >"$WORK/run.out" 2>&1 || status=$?
    if ((status == 0 || status >= 124)) || ! grep -qF "bad/input" "$WORK/run.out"; then
      echo "NOTE ($SIM_VERBS, not failed on) [$c] snr sim: exit $status: $(head -1 "$WORK/run.out")"
    fi
  done
fi

echo "$runs bad-input runs, $failures failure(s)"
((failures == 0)) || fail "$failures bad-input case(s) misbehaved"
echo "hardening matrix ok"
