#!/usr/bin/env python3
"""snr sim against an ASTRA-sim build on random, seeded cases.

Each case draws a workload of `snr et generate` (every pattern, 4-32 NPUs,
odd and round sizes, 1-3 layers, compute times with and without the
roofline), a network of one to three dimensions (Ring, Switch,
FullyConnected; bandwidths and latencies), and a system configuration
(LIFO/FIFO, endpoint delay, active chunks, splits, baseline/localBWAware,
local-memory bandwidth, ring/direct/halvingDoubling per dimension), runs
both simulators on the same files (the congestion-aware backend on
one-dimensional networks only, ASTRA-sim's supports no other) and compares
every NPU's `finished` line.

Usage: compare_astra_sim_random.py ASTRA_SIM_BIN_DIR SNR CASES SEED [SCRATCH_DIR]
ASTRA_SIM_BIN_DIR holds AstraSim_Analytical_Congestion_{Aware,Unaware}.
Prints each case that differs with its inputs, then one line of counts:
identical; differ; ASTRA-sim gave no result (it asserted, crashed or
stopped) while snr did; snr refused where ASTRA-sim gave one (snr's
documented refusals: halvingDoubling on a phase whose size is not a power
of two, whose partners ASTRA-sim does not define); neither gave one.
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

FINISHED = re.compile(r"sys\[(\d+)\] finished, (\d+)")


def finish_lines(text):
    return sorted((int(npu), int(ns)) for npu, ns in FINISHED.findall(text))


def dimensions(rng, npus):
    """One to three dimension sizes (each at least 2) whose product is npus."""
    dims, left = [], npus
    while len(dims) < 2:
        divisors = [d for d in range(2, left) if left % d == 0]
        if not divisors or rng.random() < 0.4:
            break
        d = rng.choice(divisors)
        dims.append(d)
        left //= d
    return dims + [left]


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    astra_bin, snr = sys.argv[1], os.path.abspath(sys.argv[2])
    try:
        cases, seed = int(sys.argv[3]), int(sys.argv[4])
    except ValueError:
        sys.exit(f"CASES and SEED are whole numbers, got {sys.argv[3]!r} and {sys.argv[4]!r}")
    if cases < 1:
        sys.exit(f"CASES is at least 1, got {cases}")
    for binary in [snr] + [os.path.join(astra_bin, "AstraSim_Analytical_Congestion_" + b) for b in ("Aware", "Unaware")]:
        if not os.access(binary, os.X_OK):
            sys.exit(f"no executable {binary}")
    work = os.path.abspath(sys.argv[5] if len(sys.argv) > 5 else tempfile.mkdtemp())
    os.makedirs(work, exist_ok=True)
    root = os.path.dirname(os.path.abspath(__file__))
    data = os.path.abspath(os.environ.get("SNR_SHARED_DATA", os.path.join(root, "..", "..", "..", "shared", "data")))
    memory = os.path.join(data, "astra-sim", "remote_memory", "analytical", "no_memory_expansion.json")
    rng = random.Random(seed)
    counts = {"identical": 0, "differ": 0, "astra_no_result": 0, "snr_refused": 0, "neither": 0}
    for case in range(cases):
        npus = rng.choice([4, 6, 8, 12, 16, 32])
        pattern = rng.choice(["allreduce", "allgather", "reducescatter", "alltoall", "dp", "tp", "pp", "hybrid"])
        extra = []
        if pattern == "hybrid":
            extra = ["--tp-size", str(rng.choice([d for d in (2, 4) if npus % d == 0]))]
        if pattern == "pp":
            extra = ["--microbatches", str(rng.choice([1, 2, 3]))]
        prefix = os.path.join(work, f"c{case}")
        generate = [snr, "et", "generate", "--pattern", pattern, "--npus", str(npus),
                    "--layers", str(rng.choice([1, 2, 3])), "--size",
                    rng.choice(["1000", "4KiB", "65537", "100000", "1MiB", "3MiB"]),
                    "--compute-us", str(rng.choice([0, 1, 5, 50])), "-o", prefix] + extra
        subprocess.run(generate, check=True, capture_output=True)
        groups = prefix + ".comm_groups.json"
        if not os.path.exists(groups):
            groups = "empty"
        dims = dimensions(rng, npus)
        network = os.path.join(work, f"net{case}.yml")
        with open(network, "w") as f:
            f.write("topology: [{}]\nnpus_count: [{}]\nbandwidth: [{}]\nlatency: [{}]\n".format(
                ", ".join(rng.choice(["Ring", "Switch", "FullyConnected"]) for _ in dims),
                ", ".join(map(str, dims)),
                ", ".join(str(rng.choice([25, 50, 100, 200, 400])) for _ in dims),
                ", ".join(str(rng.choice([0, 10, 100, 500, 1500])) for _ in dims)))
        algorithms = [rng.choice(["ring", "direct", "halvingDoubling"]) for _ in dims]
        # (endpoint-delay 0 with a fast reduction makes ASTRA-sim's network
        # event queue assert on an event at the current time.)
        system = {"scheduling-policy": rng.choice(["LIFO", "FIFO"]), "endpoint-delay": rng.choice([10, 37]),
                  "active-chunks-per-dimension": rng.choice([1, 2, 3]),
                  "preferred-dataset-splits": rng.choice([1, 2, 4, 5, 16]),
                  "collective-optimization": rng.choice(["baseline", "localBWAware"]),
                  "local-mem-bw": rng.choice([50, 1600, 4000])}
        for kind in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
            system[kind + "-implementation"] = algorithms
        if rng.random() < 0.3:
            system.update({"roofline-enabled": 1, "peak-perf": rng.choice([100, 900])})
        system_file = os.path.join(work, f"sys{case}.json")
        with open(system_file, "w") as f:
            json.dump(system, f)
        args = [f"--workload-configuration={prefix}", f"--system-configuration={system_file}",
                f"--network-configuration={network}", f"--remote-memory-configuration={memory}",
                f"--comm-group-configuration={groups}"]
        for backend in ["unaware"] + (["aware"] if len(dims) == 1 else []):
            binary = os.path.join(astra_bin, "AstraSim_Analytical_Congestion_" + backend.capitalize())
            try:
                # (ASTRA-sim writes its log folder into the working directory.)
                astra = subprocess.run([binary] + args, capture_output=True, text=True, timeout=120, cwd=work)
                astra_text = astra.stdout + astra.stderr
            except subprocess.TimeoutExpired:
                astra_text = ""
            ours = subprocess.run([snr, "sim", f"--network-backend=analytical-congestion-{backend}"] + args,
                                  capture_output=True, text=True, timeout=300)
            theirs, mine = finish_lines(astra_text), finish_lines(ours.stdout)
            if not theirs and not mine:
                counts["neither"] += 1
                continue
            if theirs == mine:
                counts["identical"] += 1
                continue
            if not theirs and mine:
                counts["astra_no_result"] += 1
                continue
            if theirs and ours.returncode != 0:
                counts["snr_refused"] += 1
                continue
            counts["differ"] += 1
            print(f"DIFF case {case} {backend}: {' '.join(generate[2:-2])} network {dims} {open(network).read()!r} "
                  f"system {json.dumps(system)}")
            print(f"  ASTRA-sim {theirs[:4]} | snr {mine[:4]} {ours.stderr.strip()[:200]}")
    print(f"seed {seed}: {sum(counts.values())} runs: {counts['identical']} identical, {counts['differ']} differ, "
          f"{counts['astra_no_result']} without an ASTRA-sim result, {counts['snr_refused']} refused by snr, "
          f"{counts['neither']} with a result from neither")


if __name__ == "__main__":
    main()
