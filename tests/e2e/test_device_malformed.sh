# Garbage, bad checksums, oversized and malformed packets sent to
# `snr device serve` get error replies; the session survives and detaches.
source "$(dirname "$0")/lib.sh"
"$SNR" asm "$SRC/src/record/testdata/ring_exchange.s" -o "$WORK/ring.elf"
start_device 60 "$WORK/ring.elf" --chips 2

exec 3<>"/dev/tcp/127.0.0.1/$port"
packet() {  # frames $1 with its checksum
  local body="$1" sum=0 i
  for ((i = 0; i < ${#body}; i++)); do sum=$(((sum + $(printf '%d' "'${body:i:1}")) % 256)); done
  printf '$%s#%02x' "$body" "$sum"
}
{
  printf 'line noise\x01\x02'
  printf '$g#00'                                  # bad checksum: '-'
  packet 'm1000,zz'                               # bad length: E01
  packet 'Hg99'                                   # no such chip: E02
  packet 'mf8000000,4'                            # outside every window: E03
  packet "m$(printf 'f%.0s' $(seq 1 40)),4"       # address over 64 bits: E01
  # oversized: over twice the 4 MiB packet limit even before unescaping
  head -c 9000000 /dev/zero | tr '\0' 'a' | sed 's/^/$/; s/$/#00/'
  packet 'x1000,zz'                               # malformed binary read: E01
  packet 'xf8000000,4'                            # binary read outside every window: E03
  packet 'qfThreadInfo'
  packet 'D'
} >&3
replies=""
for _ in $(seq 1 100); do
  chunk=""
  read -r -t 0.1 -n 4096 chunk <&3 || true  # a timeout keeps what arrived so far
  replies+="$chunk"
  [[ "$replies" == *'$OK#9a'* ]] && break
done
exec 3>&-

wait "$server" || fail "device server failed"
echo "$replies" | grep -qF -- '-' || fail "no nack for a bad checksum: $replies"
for expected in '$E01#' '$E02#' '$E03#' '$m1,2#' '$OK#9a'; do
  [[ "$replies" == *"$expected"* ]] || fail "missing reply $expected in: $replies"
done
[[ $(grep -o 'E01#' <<<"$replies" | wc -l) -ge 4 ]] ||
  fail "expected E01 for the bad length, the wide address, the oversized packet and the bad binary read: $replies"
[[ $(grep -o 'E03#' <<<"$replies" | wc -l) -ge 2 ]] || fail "expected E03 for both reads outside the windows: $replies"
expect_contains "$WORK/serve.err" "detached"
expect_contains "$WORK/serve.err" "malformed"
echo "device malformed ok"
