#!/usr/bin/env python3
"""All-reduce on the simulated DGX A100 against measured NCCL times.

Runs `snr collective allreduce --system dgx-a100 --algorithm auto
--protocol auto --json` (NCCL's own choice of algorithm, protocol, channels
and threads, simulated on the load-store GPU model and the NoC network) for
2, 4 and 8 GPUs at power-of-two sizes, and compares the simulated time with
the measured NCCL kernel times of Vidur's profiler
(data/vidur/network/a100_dgx/all_reduce.csv).

The measured side:
  * single-node rows only: num_workers == devices_per_node (2/2, 4/4, 8/8);
  * the `size` column is the buffer in bytes: Vidur's profiler writes
    `size * 2` (fp16 elements times 2) into it, and its largest row
    (67,108,864) is twice its element limit (4096 * 8192);
  * the CSV holds rank 0's row only; sizes below 1 MiB are not powers of
    two, so a point is the median of the `median` column over the rows
    within a quarter octave of the size (size * 2^-1/4 <= s < size * 2^1/4).

Error of a point: |ln(simulated / measured)|; the geometric-mean error of a
set of points is exp(mean |ln(simulated / measured)|) - 1, printed per GPU
count and overall, and again for the sizes from --split-at up (default
4 MiB): below it many measured medians sit on a 45-65 us plateau that is
not the GPUs' work (2 GPUs take longer than 8 there), the host-bound launch
of the profiled kernels. NCCL's own estimate (its tuning model) is shown
beside the simulation for comparison.

The floor: no model of the hardware can be closer to these medians than
the closest fit that is monotone where any all-reduce is (a larger buffer
never takes less time; on one NVSwitch node, neither do more GPUs: every
ring or chain step count and per-GPU share of the bytes grows with the
GPU count). The script prints that floor, exp(min mean |ln(fit /
measured)|) - 1 over all such fits, per GPU count (monotone in size) and
over all points (monotone in both); --floor-only prints it without
simulating.

The same comparison on another machine: --system dgx-h100 --csv with
Vidur's data/profiling/network/h100_dgx/all_reduce.csv (same columns and
reading); the constants fitted on A100 stay as they are.

Usage: nccl_fidelity.py [--snr PATH] [--csv PATH] [--system dgx-a100|dgx-h100] [--gpus 2 4 8]
                        [--sizes 65536 ...] [--jobs N] [--max-error 0.10] [--split-at BYTES]
                        [--json FILE] [--floor-only] [-- extra snr arguments]
"""
import argparse
import csv
import json
import math
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SIZES = [1 << e for e in range(16, 27)]  # 64 KiB .. 64 MiB, the CSV's range


def default_csv():
    for base in (os.path.join(ROOT, "..", "shared", "data"), os.path.join(ROOT, "data")):
        path = os.path.join(base, "vidur", "network", "a100_dgx", "all_reduce.csv")
        if os.path.exists(path):
            return os.path.normpath(path)
    return None


MEASURED_COLUMNS = ("collective", "num_workers", "devices_per_node", "size", "time_stats.all_reduce.median")


def measured_points(csv_path, gpus, sizes):
    rows = {}
    with open(csv_path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in MEASURED_COLUMNS if reader.fieldnames and c not in reader.fieldnames]
        if missing:
            sys.exit(f"nccl_fidelity: {csv_path} lacks the column(s) {', '.join(missing)} of Vidur's all_reduce.csv")
        for line, r in enumerate(reader, start=2):
            if r["collective"] != "all_reduce" or r["num_workers"] != r["devices_per_node"]:
                continue
            try:
                workers, size, median_ms = int(r["num_workers"]), int(r["size"]), float(r["time_stats.all_reduce.median"])
            except ValueError as e:
                sys.exit(f"nccl_fidelity: {csv_path}:{line}: {e}")
            if not (workers > 0 and size > 0 and 0 < median_ms < 1e6):
                sys.exit(f"nccl_fidelity: {csv_path}:{line}: num_workers {workers}, size {size} or median "
                         f"{median_ms} ms out of range")
            rows.setdefault(workers, []).append((size, median_ms * 1000.0))
    out = {}
    for n in gpus:
        for s in sizes:
            lo, hi = s * 2 ** -0.25, s * 2 ** 0.25
            window = [t for size, t in rows.get(n, []) if lo <= size < hi]
            if window:
                out[(n, s)] = (statistics.median(window), len(window))
    return out


def simulate(snr, system, n, size, extra):
    cmd = [snr, "collective", "allreduce", "--gpus", str(n), "--size", str(size), "--system", system,
           "--algorithm", "auto", "--protocol", "auto", "--json"] + extra
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"nccl_fidelity: {' '.join(cmd)} failed (exit {run.returncode}): {run.stderr.strip()}")
    return json.loads(run.stdout)


def geo_error(pairs):
    if not pairs:
        return float("nan")
    return math.exp(sum(abs(math.log(p / m)) for p, m in pairs) / len(pairs)) - 1


def monotone_floor(points, monotone_in_gpus):
    """Smallest mean |ln(fit / measured)| of any fit f(gpus, size) that is
    non-decreasing in size (and in gpus, when asked) over `points`, a dict
    {(gpus, size): measured}. By the threshold decomposition of the L1
    distance: sum |f - y| is the integral over t of the number of points on
    the wrong side of t, and for every t the points with f >= t form an
    up-set of the order, so the sum of the least misclassification of each
    threshold, weighted by the gap to the next data value, is a lower
    bound, attained by nested up-sets. An up-set of a grid ordered by size
    (and gpus) is one cut-off size per GPU count (non-increasing with the
    GPU count when monotone in it); the grids here are small enough to try
    every cut-off."""
    if not points:
        return float("nan")
    gpu_counts = sorted({n for n, _ in points})
    by_gpus = {n: [math.log(points[(n, s)]) for s in sorted(s for m, s in points if m == n)] for n in gpu_counts}
    values = sorted({v for logs in by_gpus.values() for v in logs})

    def least_misclassified(threshold):
        # wrong[n][c]: points of row n on the wrong side when the row's
        # up-set starts at index c.
        wrong = {}
        for n, logs in by_gpus.items():
            above = [v >= threshold for v in logs]
            wrong[n] = [sum(1 for i, a in enumerate(above) if (i >= c) != a) for c in range(len(logs) + 1)]
        if not monotone_in_gpus:
            return sum(min(w) for w in wrong.values())
        # Cut-offs non-increasing with the GPU count (rows sorted by size
        # index; rows of different lengths compare by position, as the
        # sizes of the sweep are shared). best[c]: least cost of the rows so
        # far with the last row's cut-off at c.
        best = None
        for n in gpu_counts:
            w = wrong[n]
            if best is None:
                best = list(w)
                continue
            new = []
            for c in range(len(w)):
                previous = [best[p] for p in range(c, len(best))] or [float("inf")]
                new.append(w[c] + min(previous))
            best = new
        return min(best)

    total = sum((values[k + 1] - values[k]) * least_misclassified(values[k + 1]) for k in range(len(values) - 1))
    return total / len(points)


def print_floor(measured):
    print("floor: the closest any monotone fit comes to the measured medians")
    floors = {}
    for n in sorted({n for n, _ in measured}):
        row = {k: v[0] for k, v in measured.items() if k[0] == n}
        floors[str(n)] = math.exp(monotone_floor(row, False)) - 1
        print(f"  {n} GPUs ({len(row)} points), monotone in size: {floors[str(n)]:.1%}")
    everything = {k: v[0] for k, v in measured.items()}
    floors["all_size"] = math.exp(monotone_floor(everything, False)) - 1
    floors["all"] = math.exp(monotone_floor(everything, True)) - 1
    print(f"  all ({len(everything)} points), monotone in size: {floors['all_size']:.1%}; "
          f"in size and GPU count: {floors['all']:.1%}")
    return floors


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snr", default=os.path.join(ROOT, "build", "snr"))
    ap.add_argument("--csv", default=default_csv())
    ap.add_argument("--system", default="dgx-a100", choices=["dgx-a100", "dgx-h100"],
                    help="the simulated system, to compare with measurements of that machine (dgx-h100 with "
                         "Vidur's h100_dgx/all_reduce.csv: the model as fitted on A100, not refitted)")
    ap.add_argument("--gpus", type=int, nargs="+", default=[2, 4, 8])
    ap.add_argument("--sizes", type=int, nargs="+", default=DEFAULT_SIZES)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--max-error", type=float, default=None,
                    help="exit 1 when the overall geometric-mean error exceeds this (0.10 = 10%%)")
    ap.add_argument("--json", default=None, help="write every point here")
    ap.add_argument("--split-at", type=int, default=4 << 20,
                    help="also summarize the sizes from here up (default 4 MiB)")
    ap.add_argument("--floor-only", action="store_true",
                    help="print the floor of any monotone fit to the measured points and stop")
    ap.add_argument("extra", nargs="*", help="more snr arguments, after --")
    args = ap.parse_args()
    if not args.csv or not os.path.exists(args.csv):
        sys.exit("nccl_fidelity: the measured CSV is missing (give --csv)")

    measured = measured_points(args.csv, args.gpus, args.sizes)
    if not measured:
        sys.exit(f"nccl_fidelity: {args.csv} has no single-node all-reduce rows for GPUs {args.gpus} "
                 f"within a quarter octave of the sizes asked")
    if args.floor_only:
        floors = print_floor(measured)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"floor": floors}, f, indent=2)
        return 0
    points = sorted(measured)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = list(pool.map(lambda p: simulate(args.snr, args.system, p[0], p[1], args.extra), points))

    print(f"{'gpus':>4} {'size':>10} {'algorithm':>9} {'proto':>6} {'ch':>3} {'measured_us':>11} "
          f"{'rows':>4} {'sim_us':>8} {'sim_err':>8} {'nccl_us':>8} {'nccl_err':>8}")
    table, sim_pairs, nccl_pairs = [], {}, {}
    for (n, s), run in zip(points, runs):
        meas_us, count = measured[(n, s)]
        sim_us = run["time_ns"] / 1000.0
        nccl_us = run.get("nccl_tuning", {}).get("estimated_time_ns", float("nan")) / 1000.0
        sim_pairs.setdefault(n, []).append((sim_us, meas_us))
        nccl_pairs.setdefault(n, []).append((nccl_us, meas_us))
        row = {"gpus": n, "size_bytes": s, "algorithm": run["algorithm"], "protocol": run["protocol"],
               "channels": run["workgroups"], "measured_us": meas_us, "measured_rows": count, "sim_us": sim_us,
               "nccl_estimate_us": nccl_us}
        table.append(row)
        print(f"{n:>4} {s:>10} {run['algorithm'].replace('nccl-', ''):>9} {run['protocol']:>6} "
              f"{run['workgroups']:>3} {meas_us:>11.1f} {count:>4} {sim_us:>8.1f} {sim_us / meas_us - 1:>+8.1%} "
              f"{nccl_us:>8.1f} {nccl_us / meas_us - 1:>+8.1%}")
    print()
    print("geometric-mean error = exp(mean |ln(predicted / measured)|) - 1")
    summary = {}
    for n in sorted(sim_pairs):
        summary[str(n)] = {"sim": geo_error(sim_pairs[n]), "nccl": geo_error(nccl_pairs[n]),
                           "points": len(sim_pairs[n])}
        print(f"  {n} GPUs ({len(sim_pairs[n])} points): simulated {summary[str(n)]['sim']:.1%}, "
              f"NCCL's estimate {summary[str(n)]['nccl']:.1%}")
    all_sim = [p for v in sim_pairs.values() for p in v]
    all_nccl = [p for v in nccl_pairs.values() for p in v]
    summary["all"] = {"sim": geo_error(all_sim), "nccl": geo_error(all_nccl), "points": len(all_sim)}
    print(f"  all ({len(all_sim)} points): simulated {summary['all']['sim']:.1%}, "
          f"NCCL's estimate {summary['all']['nccl']:.1%}")
    large = [r for r in table if r["size_bytes"] >= args.split_at]
    if large:
        print(f"from {args.split_at} bytes up:")
        for n in sorted({r["gpus"] for r in large}):
            rows = [r for r in large if r["gpus"] == n]
            err = geo_error([(r["sim_us"], r["measured_us"]) for r in rows])
            summary[f"{n}_large"] = {"sim": err, "points": len(rows)}
            print(f"  {n} GPUs ({len(rows)} points): simulated {err:.1%}")
        err = geo_error([(r["sim_us"], r["measured_us"]) for r in large])
        nccl = geo_error([(r["nccl_estimate_us"], r["measured_us"]) for r in large])
        summary["all_large"] = {"sim": err, "nccl": nccl, "points": len(large)}
        print(f"  all ({len(large)} points): simulated {err:.1%}, NCCL's estimate {nccl:.1%}")
    print()
    floors = print_floor(measured)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"points": table, "geo_mean_error": summary, "floor": floors}, f, indent=2)
    if args.max_error is not None and summary["all"]["sim"] > args.max_error:
        print(f"FAIL: geometric-mean error {summary['all']['sim']:.1%} > {args.max_error:.1%}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
