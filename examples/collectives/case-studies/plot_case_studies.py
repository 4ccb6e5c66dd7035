#!/usr/bin/env python3
"""Draws the case studies' results (the --json files of the figure scripts)
as SVG line charts: algorithm bandwidth (GB/s) against buffer size on a
log2 axis, one line per series. Python standard library only.

    plot_case_studies.py fig10.json fig11.json ... --out-dir DIR
writes DIR/figNN.svg for each input.
"""

import argparse
import json
import math
import os
from xml.sax.saxutils import escape

from case_study import format_size

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf", "#7f7f7f"]
DASHES = ["", "6,3", "2,2", "8,3,2,3"]
WIDTH, HEIGHT = 720, 440
LEFT, RIGHT, TOP, BOTTOM = 70, 170, 58, 52


def nice_ceiling(value):
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * power:
            return step * power
    return 10 * power


def chart(results):
    runs = results["runs"]
    sizes = sorted({r["size_bytes"] for r in runs})
    y_max = nice_ceiling(max(r["algbw_gbps"] for r in runs) * 1.05)
    x_lo, x_hi = math.log2(sizes[0]), math.log2(sizes[-1])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(size):
        return LEFT + (0.5 if x_hi == x_lo else (math.log2(size) - x_lo) / (x_hi - x_lo)) * plot_w

    def y(value):
        return TOP + plot_h - value / y_max * plot_h

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
           ]
    # The title's first line names the figure and setup, the second what varies.
    head, _, subject = results["title"].rpartition(": ")
    for i, line in enumerate((head, subject) if head else (subject,)):
        out.append(f'<text x="{LEFT}" y="{20 + 17 * i}" font-size="13" font-weight="bold">{escape(line)}</text>')
    for i in range(6):
        value = y_max * i / 5
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(value):.1f}" y2="{y(value):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(value) + 4:.1f}" text-anchor="end">{value:g}</text>')
    for size in sizes:
        out.append(f'<line x1="{x(size):.1f}" x2="{x(size):.1f}" y1="{TOP + plot_h}" y2="{TOP + plot_h + 4}" '
                   'stroke="black"/>')
        out.append(f'<text x="{x(size):.1f}" y="{TOP + plot_h + 17}" text-anchor="middle">{format_size(size)}</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="black"/>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{HEIGHT - 12}" text-anchor="middle">buffer size per GPU</text>')
    out.append(f'<text transform="translate(18,{TOP + plot_h / 2}) rotate(-90)" text-anchor="middle">'
               'algorithm bandwidth (GB/s)</text>')
    for i, label in enumerate(results["series"]):
        points = sorted((r["size_bytes"], r["algbw_gbps"]) for r in runs if r["series"] == label)
        colour, dash = COLOURS[i % len(COLOURS)], DASHES[(i // len(COLOURS) + i) % len(DASHES)]
        path = " ".join(f"{x(s):.1f},{y(v):.1f}" for s, v in points)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash_attr}/>')
        for s, v in points:
            out.append(f'<circle cx="{x(s):.1f}" cy="{y(v):.1f}" r="3" fill="{colour}"/>')
        ly = TOP + 14 + 20 * i
        out.append(f'<line x1="{LEFT + plot_w + 12}" x2="{LEFT + plot_w + 40}" y1="{ly}" y2="{ly}" stroke="{colour}" '
                   f'stroke-width="2"{dash_attr}/>')
        out.append(f'<text x="{LEFT + plot_w + 46}" y="{ly + 4}">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", help="--json files written by the figure scripts")
    parser.add_argument("--out-dir", default=".", help="where fig<figure>.svg go")
    args = parser.parse_args()
    for path in args.results:
        with open(path) as f:
            results = json.load(f)
        target = os.path.join(args.out_dir, f"fig{results['figure']}.svg")
        with open(target, "w") as f:
            f.write(chart(results))
        print(target)


if __name__ == "__main__":
    main()
