"""Seed 004 §9.2, qualitatively: co-optimizing technology, parallelism and
architecture beats optimizing each alone. For each logic node, the paper's
case-study language model (examples/pathfind/lstm-lm-case-study.yaml, 512
devices) is predicted four ways:

  baseline      the given budget split (a100-like) and CR-8-d64-p1
  parallelism   the given budget split, the best of every strategy for 512
                devices (each predicted)
  architecture  CR-8-d64-p1, the budget split searched (gd, equation 6)
  both          the budget split searched under each of the `--top`
                strategies that parallelism alone ranks best

and the times are written as a table (CSV) and a grouped bar chart (SVG).

    scripts/build.sh build
    PYTHONPATH=build/python python3 examples/case-study/co_optimization.py \\
        --out docs/case-study-co-optimization [--nodes n12,n7,n3,n1] [--steps 100] [--starts 10]

docs/case-study-co-optimization.md shows and discusses what it measured.
"""
import argparse
import csv
import pathlib

import snr

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODEL = ROOT / "examples" / "pathfind" / "lstm-lm-case-study.yaml"
DEVICES = 512
BASELINE = "CR-8-d64-p1"


def strategies(devices):
    """Every split of `devices` into kernel (RC / CR), data and layer (2 layers) parallelism."""
    divisors = [d for d in range(1, devices + 1) if devices % d == 0]
    out = []
    for lp in (1, 2):
        for dp in divisors:
            rest = devices // (dp * lp) if devices % (dp * lp) == 0 else 0
            if rest == 0:
                continue
            if rest == 1:
                out.append(f"d{dp}-p{lp}")
                continue
            out.append(f"CR-{rest}-d{dp}-p{lp}")
            for kp1 in divisors:
                if rest % kp1 == 0 and kp1 > 1 and rest // kp1 > 1:
                    out.append(f"RC-{kp1}-{rest // kp1}-d{dp}-p{lp}")
    return out


def predict_time(strategy, tech):
    try:
        r = snr.pathfind.predict(MODEL, strategy, tech=tech, arch="gpu-16x16", budget="a100-like")
    except snr.Error:
        return None  # a split the model refuses (e.g. more layer stages than layers)
    return r["time_s"] if r["memory"]["fits"] else None


def search_time(strategy, tech, settings, seed):
    r = snr.pathfind.search(MODEL, strategy, tech=tech, arch="gpu-16x16", budget="a100-like", settings=settings,
                            seed=seed)
    return r["best"]["time_s"] if r.get("best") else None


def bar_chart(rows, path):
    labels = ["baseline", "parallelism", "architecture", "both"]
    colours = ["#9e9e9e", "#4e79a7", "#f28e2b", "#59a14f"]
    width, height, left, bottom, top = 760, 360, 70, 50, 40
    group = (width - left - 20) / len(rows)
    bar = group / (len(labels) + 1)
    peak = max(r[k] for r in rows for k in labels)
    scale = (height - bottom - top) / peak
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="12">',
             f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">LSTM LM, 512 devices: '
             f'iteration time by what is optimized (lower is better)</text>',
             f'<line x1="{left}" y1="{height - bottom}" x2="{width - 10}" y2="{height - bottom}" stroke="black"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
             f'<text x="15" y="{(height - bottom + top) / 2}" transform="rotate(-90 15 {(height - bottom + top) / 2})" '
             f'text-anchor="middle">iteration (s)</text>']
    for tick in range(0, 5):
        value = peak * tick / 4
        y = height - bottom - value * scale
        parts.append(f'<text x="{left - 5}" y="{y + 4}" text-anchor="end">{value:.2f}</text>')
        parts.append(f'<line x1="{left}" y1="{y}" x2="{width - 10}" y2="{y}" stroke="#ddd"/>')
    for g, row in enumerate(rows):
        x0 = left + g * group + bar / 2
        for i, label in enumerate(labels):
            h = row[label] * scale
            x = x0 + i * bar
            parts.append(f'<rect x="{x:.1f}" y="{height - bottom - h:.1f}" width="{bar * 0.9:.1f}" height="{h:.1f}" '
                         f'fill="{colours[i]}"><title>{row["node"]} {label}: {row[label]:.4g} s</title></rect>')
        parts.append(f'<text x="{x0 + 2 * bar:.1f}" y="{height - bottom + 18}" text-anchor="middle">'
                     f'{row["node"]}</text>')
    for i, label in enumerate(labels):
        x = left + 10 + i * 150
        parts.append(f'<rect x="{x}" y="{height - 22}" width="12" height="12" fill="{colours[i]}"/>')
        parts.append(f'<text x="{x + 16}" y="{height - 12}">{label}</text>')
    parts.append("</svg>")
    path.write_text("\n".join(parts) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=pathlib.Path, required=True, help="writes OUT.csv and OUT.svg")
    parser.add_argument("--nodes", default="n12,n7,n3,n1")
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--top", type=int, default=3, help="strategies searched jointly with the architecture")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    settings = {"steps": args.steps, "starts": args.starts}
    rows = []
    for tech in args.nodes.split(","):
        ranked = sorted((t, s) for s in strategies(DEVICES) if (t := predict_time(s, tech)) is not None)
        row = {"node": tech, "baseline": predict_time(BASELINE, tech), "parallelism": ranked[0][0],
               "best_strategy": ranked[0][1], "architecture": search_time(BASELINE, tech, settings, args.seed)}
        joint = [(search_time(s, tech, settings, args.seed), s) for _, s in ranked[:args.top]]
        row["both"], row["both_strategy"] = min((t, s) for t, s in joint if t is not None)
        rows.append(row)
        print(f"{tech:>4}: baseline {row['baseline']:.4g} s, parallelism {row['parallelism']:.4g} s "
              f"({row['best_strategy']}), architecture {row['architecture']:.4g} s, both {row['both']:.4g} s "
              f"({row['both_strategy']})", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out.with_suffix(".csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    bar_chart(rows, args.out.with_suffix(".svg"))


if __name__ == "__main__":
    main()
