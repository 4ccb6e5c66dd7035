#!/usr/bin/env bash
# The case studies of seed 003 §5.2–5.3 (examples/collectives/case-studies,
# docs/collective-case-studies.md), reduced to a short ring or exchange
# (2 or 4 GPUs: a ring step or a direct exchange moves as many bytes per
# link as at the paper's GPU count) at one latency-bound and one
# bandwidth-bound size, with each figure's outcome asserted.
source "$(dirname "$0")/lib.sh"
S="$SRC/examples/collectives/case-studies"
export SNR

# (a) Figure 10, reduce-scatter: get-based is faster for large buffers on
# the case-study GPU (reductions follow each line as it arrives; a put's
# receiver reduces only after the whole chunk and its signal). On the
# preset GPU (64 outstanding requests per CU) the get-based one is held to
# a fraction of the link by its remote loads in flight instead.
"$S/fig10_reducescatter_get_put.py" --gpus 4 --sizes 16KiB,4MiB --series put get "get, preset GPU" \
  --json "$WORK/fig10.json"
# (b) Figure 11, all-gather: put-based is faster; fair control/data
# arbitration narrows the gap (read requests no longer wait behind data).
"$S/fig11_allgather_get_put.py" --gpus 2 --sizes 16KiB,8MiB \
  --series put get "put, fair" "get, fair" "put, preset GPU" "get, preset GPU" --json "$WORK/fig11.json"
# (c) Figure 12, all-to-all: unrolling raises the bandwidth of large
# buffers with diminishing gains and leaves small ones alone.
"$S/fig12_alltoall_unroll.py" --gpus 2 --sizes 16KiB,8MiB --series "get, unroll 1" "get, unroll 4" "get, unroll 16" \
  --json "$WORK/fig12.json"
# (d) Figure 13, all-gather: the outstanding-request limit per CU, the
# same saturating shape, no effect on latency-bound sizes.
"$S/fig13_allgather_outstanding.py" --gpus 4 --sizes 16KiB,4MiB --series "max 1" "max 16" "max 256" \
  --json "$WORK/fig13.json"

python3 - "$WORK" <<'PY'
import json, os, sys
work = sys.argv[1]

def bandwidth(figure):
    runs = json.load(open(os.path.join(work, f"{figure}.json")))["runs"]
    return {(r["series"], r["size_bytes"]): r["algbw_gbps"] for r in runs}

small, large4, large8 = 16 << 10, 4 << 20, 8 << 20

b = bandwidth("fig10")
assert b["get", large4] > 1.05 * b["put", large4], ("get-based reduce-scatter not faster", b)
assert 0.9 < b["get", small] / b["put", small] < 1.15, ("latency-bound sizes differ", b)
assert b["get, preset GPU", large4] < 0.6 * b["get", large4], b
assert b["get, preset GPU", large4] < 0.6 * b["put", large4], b

b = bandwidth("fig11")
assert b["put", large8] > 1.1 * b["get", large8], ("put-based all-gather not faster", b)
gap_fifo = b["put", large8] / b["get", large8]
gap_fair = b["put, fair", large8] / b["get, fair", large8]
assert gap_fair < gap_fifo - 0.05, ("fair arbitration does not narrow the gap", gap_fifo, gap_fair)
assert b["get, fair", large8] > b["get", large8], b
assert b["put, preset GPU", large8] > 2 * b["get, preset GPU", large8], b

b = bandwidth("fig12")
u1, u4, u16 = (b[f"get, unroll {u}", large8] for u in (1, 4, 16))
assert u4 > 2 * u1 and u16 > 1.1 * u4, ("unrolling does not raise the bandwidth", u1, u4, u16)
assert u16 / u4 < (u4 / u1) / 1.5, ("no diminishing gains", u1, u4, u16)
small_runs = [b[f"get, unroll {u}", small] for u in (1, 4, 16)]
assert max(small_runs) / min(small_runs) < 1.02, ("unrolling changes a latency-bound size", small_runs)

b = bandwidth("fig13")
m1, m16, m256 = (b[f"max {m}", large4] for m in (1, 16, 256))
assert m16 > 3 * m1 and m256 > m16, ("the limit does not matter", m1, m16, m256)
assert m256 / m16 < (m16 / m1) / 3, ("no saturation", m1, m16, m256)
assert abs(b["max 256", small] / b["max 16", small] - 1) < 0.01, b
assert b["max 1", small] > 0.85 * b["max 256", small], b
print("all four outcomes hold")
PY
echo "PASS"
