# Helpers sourced by every e2e test: `SNR` is the binary under test, `SRC`
# the source tree, `DATA` the shared external inputs, `WORK` a fresh
# scratch directory removed on exit.
set -euo pipefail
SNR="$1"
SRC="$2"
DATA="$3"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# require_data PATH... — the shared external inputs this test reads (paths
# under DATA); without them (a clone without ../shared) the rest of the test
# is skipped (exit 77), never failed.
require_data() {
  local p
  for p in "$@"; do
    [[ -e "$DATA/$p" ]] || { echo "SKIP: $DATA/$p not present"; exit 77; }
  done
}

# expect_fail CMD... — the command must fail cleanly: a non-zero exit that
# is not a crash (signal), with no sanitizer report in its output.
expect_fail() {
  local status=0
  "$@" >"$WORK/expect_fail.out" 2>&1 || status=$?
  if ((status == 0)); then
    cat "$WORK/expect_fail.out" >&2
    fail "expected failure: $*"
  fi
  if ((status >= 128)) || grep -qE 'Sanitizer|runtime error:' "$WORK/expect_fail.out"; then
    cat "$WORK/expect_fail.out" >&2
    fail "crashed (exit $status) instead of failing cleanly: $*"
  fi
}

# expect_exit CODE CMD... — exactly that exit code, with no sanitizer
# report; the output is in $WORK/exit.out.
expect_exit() {
  local code="$1" status=0
  shift
  "$@" >"$WORK/exit.out" 2>&1 || status=$?
  ((status == code)) || { cat "$WORK/exit.out" >&2; fail "exit $status (expected $code): $*"; }
  if grep -qE 'Sanitizer|runtime error:' "$WORK/exit.out"; then cat "$WORK/exit.out" >&2; fail "sanitizer: $*"; fi
}

# expect_contains FILE TEXT
expect_contains() {
  grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "'$1' does not contain '$2'"; }
}

# start_device TIMEOUT_S SERVE_ARGS... — starts `snr device serve SERVE_ARGS
# --port 0 --once` in the background and waits until it prints its port.
# Sets `server` (pid) and `port`. Fails if the server exits or stays silent.
start_device() {
  local timeout_s="$1"
  shift
  : >"$WORK/serve.out"
  : >"$WORK/serve.err"
  timeout "$timeout_s" "$SNR" device serve "$@" --port 0 --once >"$WORK/serve.out" 2>"$WORK/serve.err" &
  server=$!
  port=""
  local tries=$((timeout_s * 10))
  for ((i = 0; i < tries; i++)); do
    port=$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/serve.out")
    [[ -n "$port" ]] && return 0
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
  done
  cat "$WORK/serve.err" >&2
  fail "device server did not report its port"
}

# mpi_or_skip — for the MPI part at the end of a test: exits 0 with a SKIP
# line unless mpirun is installed and this snr was built with MPI (`snr
# version --json` lists "mpi"); otherwise exports what Open MPI needs here
# (running as root in containers, the shared-memory transport) and turns
# LeakSanitizer off for what follows: Open MPI keeps allocations past
# MPI_Finalize in components it has unloaded by exit, which a sanitizer
# build reports without a usable stack.
mpi_or_skip() {
  if ! command -v mpirun >/dev/null || ! "$SNR" version --json | grep -q '"mpi"'; then
    echo "SKIP (MPI part): mpirun or an MPI build of snr is missing"
    exit 0
  fi
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
    OMPI_MCA_btl_vader_single_copy_mechanism=none
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
}
