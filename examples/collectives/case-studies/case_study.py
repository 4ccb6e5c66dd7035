"""Runs one case study of seed 003 §5.2-5.3 from its JSON config and prints
its table: one row per buffer size, one column per series (algorithm
bandwidth in GB/s, the paper's "buffer size divided by collective time").

A config names the collective and its fixed options, the GPU and network
files (relative to the config), the sizes, and the series; a series adds
its own options and may replace the GPU or network file. The figure scripts beside
this module each run one config; `--json FILE` keeps every run's figures for
plot_case_studies.py and the end-to-end tests.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def parse_size(text):
    match = re.fullmatch(r"\s*(\d+)\s*(B|KiB|MiB|GiB)?\s*", text)
    if not match:
        raise ValueError(f"'{text}' is not a size (e.g. 4096, 64KiB, 16MiB)")
    return int(match.group(1)) * UNITS[match.group(2) or "B"]


def format_size(size):
    for unit in ("GiB", "MiB", "KiB"):
        if size >= UNITS[unit] and size % UNITS[unit] == 0:
            return f"{size // UNITS[unit]}{unit}"
    return f"{size}B"


def load_config(path):
    with open(path) as f:
        config = json.load(f)
    base = os.path.dirname(os.path.abspath(path))
    for key in ("gpu", "network"):
        config[key] = os.path.join(base, config[key])
    for series in config["series"]:
        for key in ("gpu", "network"):
            if key in series:
                series[key] = os.path.join(base, series[key])
    return config


def title(config):
    o = config["options"]
    transfer = f", {o['transfer']}" if "transfer" in o else ""
    return (f"Figure {config['figure']}: {config['collective']} ({o['algorithm']}{transfer}, {o['protocol']}), "
            f"{config['gpus']} GPUs, {o['workgroups']} workgroups per GPU: {config['subject']}")


def command(snr, config, series, size, granularity=None):
    args = [snr, "collective", config["collective"], "--gpus", str(config["gpus"]), "--size", str(size),
            "--gpu", series.get("gpu", config["gpu"]), "--network-configuration", series.get("network", config["network"]),
            "--json"]
    if granularity:
        args += ["--granularity", granularity]
    options = dict(config.get("options", {}))
    options.update(series.get("options", {}))
    for key, value in options.items():
        args += [f"--{key}", str(value)]
    return args


def portable(args):
    """The command as run from the repository root, with `snr` on PATH."""
    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
    out = ["snr"]
    for arg in args[1:]:
        out.append(os.path.relpath(arg, root) if os.path.isabs(arg) else arg)
    return " ".join(out)


def run_one(snr, config, series, size, granularity=None):
    args = command(snr, config, series, size, granularity)
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{result.stderr}")
    r = json.loads(result.stdout)
    return {"series": series["label"], "size_bytes": size, "time_ns": r["time_ns"], "algbw_gbps": r["algbw_gbps"],
            "busbw_gbps": r["busbw_gbps"], "requests": r["requests"], "control_bytes": r["control_bytes"],
            "data_bytes": r["data_bytes"], "wall_s": r["simulation"]["wall_s"], "events": r["simulation"]["events"],
            "command": portable(args)}


def table(config, runs):
    labels = [s["label"] for s in config["series"]]
    sizes = sorted({r["size_bytes"] for r in runs})
    by = {(r["series"], r["size_bytes"]): r for r in runs}
    width = max(10, *(len(label) + 2 for label in labels))
    lines = [f"# {title(config)}",
             "# algorithm bandwidth, GB/s (buffer / time); time in us in parentheses",
             f"{'size':>8}" + "".join(f"{label:>{width + 12}}" for label in labels)]
    for size in sizes:
        cells = []
        for label in labels:
            r = by.get((label, size))
            cells.append(f"{r['algbw_gbps']:>{width}.2f} ({r['time_ns'] / 1000:>8.1f})" if r else " " * (width + 12))
        lines.append(f"{format_size(size):>8}" + "".join(f"{c:>{width + 12}}" for c in cells))
    return "\n".join(lines)


def main(config_name, description):
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", default=os.path.join(here, config_name), help="the study's JSON config")
    parser.add_argument("--snr", default=os.environ.get("SNR", "snr"), help="the snr binary (default: $SNR or snr)")
    parser.add_argument("--sizes", help="comma-separated sizes instead of the config's (e.g. 1KiB,1MiB)")
    parser.add_argument("--gpus", type=int, help="GPUs instead of the config's (a shorter ring, for quick runs)")
    parser.add_argument("--max-size", help="leave out the config's sizes above this")
    parser.add_argument("--series", nargs="+", help="the series labels to run (default: all)")
    parser.add_argument("--jobs", type=int, default=1, help="runs at once")
    parser.add_argument("--json", help="also write every run's figures to this file")
    parser.add_argument("--granularity", choices=["request", "flow"],
                        help="snr's --granularity (default: snr's, request level)")
    args = parser.parse_args()

    config = load_config(args.config)
    if args.gpus:
        config["gpus"] = args.gpus
    sizes = [parse_size(s) for s in (args.sizes.split(",") if args.sizes else config["sizes"])]
    if args.max_size:
        sizes = [s for s in sizes if s <= parse_size(args.max_size)]
    if args.series:
        wanted = args.series
        unknown = [w for w in wanted if w not in [s["label"] for s in config["series"]]]
        if unknown:
            parser.error(f"unknown series {unknown} (the config has {[s['label'] for s in config['series']]})")
        config["series"] = [s for s in config["series"] if s["label"] in wanted]
    jobs = [(series, size) for size in sizes for series in config["series"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        runs = list(pool.map(lambda job: run_one(args.snr, config, job[0], job[1], args.granularity), jobs))
    print(table(config, runs))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"figure": config["figure"], "title": title(config), "collective": config["collective"],
                       "gpus": config["gpus"], "series": [s["label"] for s in config["series"]], "runs": runs}, f,
                      indent=1)
