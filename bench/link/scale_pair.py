#!/usr/bin/env python3
"""Builds a k-times larger host + Kineto trace pair from a linked pair by
repeating it: copy c shifts node ids, parent ids, rf_ids, External ids,
correlation ids (and the flow ids that carry them) by c * ID_STRIDE and
timestamps by c * (the Kineto trace's span + 1 ms). Each copy therefore links
exactly as the original does, and `snr et link` sees k times the records.

  bench/link/scale_pair.py --copies 8 HOST.json.gz KINETO.json.gz OUT_DIR

writes OUT_DIR/host_xK.json.gz and OUT_DIR/kineto_xK.json.gz (gzip level 1).
"""
import argparse
import copy
import gzip
import json
import os

ID_STRIDE = 1_000_000  # above every id of the PARAM linear pair (ids < 100,000)


def shift_host_node(node, c):
    out = copy.deepcopy(node)
    delta = c * ID_STRIDE
    if out["id"] != 1:  # the process root stays shared by all copies
        out["id"] += delta
    for key in ("parent", "ctrl_deps"):
        if isinstance(out.get(key), int) and out[key] != 1:
            out[key] += delta
    if isinstance(out.get("rf_id"), int):
        out["rf_id"] += delta
    for attr in out.get("attrs", []):
        if attr.get("name") == "rf_id" and isinstance(attr.get("value"), int):
            attr["value"] += delta
    return out


def shift_event(event, c, span_us):
    out = copy.deepcopy(event)
    delta = c * ID_STRIDE
    if isinstance(out.get("ts"), (int, float)):
        out["ts"] += c * span_us
    if out.get("ph") in ("s", "f") and isinstance(out.get("id"), int):
        out["id"] += delta
    args = out.get("args")
    if isinstance(args, dict):
        for key in ("External id", "Record function id", "correlation"):
            if isinstance(args.get(key), int):
                args[key] += delta
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--copies", type=int, required=True, help="k >= 1")
    parser.add_argument("host")
    parser.add_argument("kineto")
    parser.add_argument("out_dir")
    args = parser.parse_args()
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    with gzip.open(args.host, "rt") as f:
        host = json.load(f)
    with gzip.open(args.kineto, "rt") as f:
        kineto = json.load(f)
    if any(n["id"] >= ID_STRIDE for n in host["nodes"]):
        parser.error(f"host node ids reach {ID_STRIDE}: raise ID_STRIDE")
    events = kineto["traceEvents"]
    stamps = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
    ends = [e["ts"] + e.get("dur", 0) for e in events if isinstance(e.get("ts"), (int, float))]
    span_us = int(max(ends) - min(stamps)) + 1000

    nodes = []
    for c in range(args.copies):
        nodes.extend(n if c == 0 else shift_host_node(n, c) for n in host["nodes"] if c == 0 or n["id"] != 1)
    host["nodes"] = nodes
    scaled_events = []
    for c in range(args.copies):
        for e in events:
            if c > 0 and e.get("ph") == "M":
                continue  # process and thread names once
            scaled_events.append(e if c == 0 else shift_event(e, c, span_us))
    kineto["traceEvents"] = scaled_events

    os.makedirs(args.out_dir, exist_ok=True)
    k = args.copies
    for name, document in ((f"host_x{k}.json.gz", host), (f"kineto_x{k}.json.gz", kineto)):
        with gzip.open(os.path.join(args.out_dir, name), "wt", compresslevel=1) as f:
            json.dump(document, f)
    print(f"{len(nodes)} host nodes, {len(scaled_events)} Kineto events -> {args.out_dir}")


if __name__ == "__main__":
    main()
