"""snr from Python, notebook style: run it cell by cell (# %% markers work in
VS Code and Jupyter) or as a script from the repository root after
scripts/build.sh:

    PYTHONPATH=build/python python3 examples/python/explore.py

Every call takes configs as files, built-in names or dicts, and returns
plain dicts and lists, so pandas.DataFrame(...) works on any of them.
"""
# %% Setup
import os
import pathlib
import subprocess
import tempfile

import snr

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "pathfind"
SNR_BIN = pathlib.Path(os.environ.get("SNR_BIN", ROOT / "build" / "snr"))
print("snr", snr.__version__)

# %% GPT-3 175B on 64 A100s: which split of tensor and pipeline parallelism?
rows = []
for tp, pp in [(2, 32), (4, 16), (8, 8), (16, 4)]:
    result = snr.pathfind.predict(EXAMPLES / "gpt3-175B-train.yaml", f"tp={tp},pp={pp},dp=1,sp,recompute=selective",
                                  hw="a100-80gb", mapping="best")
    rows.append({"tp": tp, "pp": pp, "iteration_s": result["time_s"], "mfu": result["mfu"],
                 "bottleneck": result["bottleneck"], "fits": result["memory"]["fits"]})
for row in rows:
    print(f"tp={row['tp']:>2} pp={row['pp']:>2}  {row['iteration_s']:8.3f} s  MFU {100 * row['mfu']:5.1f}%  "
          f"{'fits' if row['fits'] else 'OUT OF MEMORY':<13} {row['bottleneck']}")

# %% A GEMM given as a dict, on a device generated from technology, template and budgets
gemm = {"workload": {"name": "gemm-16k", "kind": "gemm", "gemm": {"m": 16384, "n": 16384, "k": 16384},
                     "dtype": "bf16"}}
generated = snr.pathfind.predict(gemm, "RC-2-2-d1-p1", tech="n7", arch="gpu-16x16", budget="a100-like")
print(f"\n16k GEMM on 4 generated devices: {1e3 * generated['time_s']:.3f} ms, bound by {generated['bottleneck']}")
for part in generated["generated"]:
    print(f"  {part['name']:<16} bound by {part['bound']}")

# %% A 16-NPU data-parallel job in the distributed simulator, network bandwidth swept
DATA = ROOT.parent / "shared" / "data" / "astra-sim"
system = DATA / "system" / "native_collectives" / "Ring_4chunks.json"
memory = DATA / "remote_memory" / "analytical" / "no_memory_expansion.json"
if system.exists():
    with tempfile.TemporaryDirectory() as tmp:
        prefix = pathlib.Path(tmp) / "dp"
        subprocess.run([SNR_BIN, "et", "generate", "--pattern", "dp", "--npus", "16", "--layers", "8", "--size",
                        "16MiB", "-o", prefix], check=True, capture_output=True)
        print("\n16 NPUs, ring all-reduce of 8 x 16 MiB:")
        for bandwidth_gbps in (25, 50, 100, 200):
            network = {"topology": ["Ring"], "npus_count": [16], "bandwidth": [bandwidth_gbps], "latency": [500.0]}
            run = snr.sim.run(prefix, system, network, memory)
            exposed = max(npu["exposed_communication_ns"] for npu in run["npus"])
            print(f"  {bandwidth_gbps:>4} GB/s: {run['summary']['finish_ns'] / 1e6:8.3f} ms, "
                  f"exposed communication {exposed / 1e6:.3f} ms")

        # %% The trace itself
        trace = snr.et.read(f"{prefix}.0.et")
        kinds = {}
        for node in trace["nodes"]:
            kinds[node.get("type", "?")] = kinds.get(node.get("type", "?"), 0) + 1
        print(f"rank 0: {len(trace['nodes'])} nodes by type {kinds}")

# %% A replayed NPU run (run.db) as tables
snapshot = ROOT / "src" / "formats" / "snapshot" / "testdata" / "ring_2chips.snr"
with tempfile.TemporaryDirectory() as tmp:
    db = pathlib.Path(tmp) / "run.db"
    subprocess.run([SNR_BIN, "replay", snapshot, "-o", db], check=True, capture_output=True)
    run = snr.rundb.read(db)
    stalls = sum(run["instructions"]["stall_cycles"])
    print(f"\nreplayed run: {run['total_cycles']} cycles, {len(run['instructions']['step'])} instructions, "
          f"{stalls} stall cycles, {len(run['dmas']['dma_id'])} DMAs")
    try:
        import pandas
        print(pandas.DataFrame(run["dmas"])[["dma_id", "chip", "bytes", "wait_start_cycle", "wait_end_cycle"]])
    except ImportError:
        print("(install pandas to see the tables as DataFrames)")
