#!/usr/bin/env python3
"""Measures dense GEMM times on the local GPU with PyTorch and writes them in
the table format snr's measured-GEMM reader takes (LLMCompass's
"M, N, K, <latency>ms, <rate>Tflops", no header).

The shapes are LLMCompass's two A100 sweeps (M = 8192 with N = K from 64 to
32768; N = K = 12288 with M from 64 to 32768), so the same split into a fit
sweep and a held-out sweep applies on any GPU, plus a third set of LLM-layer
shapes (decode-sized M, non-square projections) that no constant is fitted on.

Each shape: operands drawn once (normal, the requested dtype), 5 warm-up
products, then REPEATS products each timed by its own pair of CUDA events;
the median is written. Inputs stay resident (no L2 flush), as in LLMCompass.

Usage: measure_gemm.py --dtype fp16 --out matmul_H100_fp16.csv [--repeats 20]
"""
import argparse
import statistics
import sys

import torch

SWEEP_FIT = [(8192, n, n) for n in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)]
SWEEP_HELD_OUT = [(m, 12288, 12288) for m in (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768)]
# (M, N, K) of LLM layers: decode (M = batch), prefill, MLP up/down projections.
LLM_LAYERS = [
    (1, 12288, 12288), (16, 12288, 12288), (32, 4096, 4096), (128, 4096, 11008),
    (2048, 4096, 4096), (4096, 11008, 4096), (4096, 4096, 11008), (8192, 4096, 14336),
    (8192, 14336, 4096), (4096, 36864, 12288), (4096, 12288, 36864), (2048, 50304, 12288),
]
DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}


def time_gemm(m, n, k, dtype, repeats):
    a = torch.randn(m, k, device="cuda", dtype=dtype)
    b = torch.randn(k, n, device="cuda", dtype=dtype)
    for _ in range(5):
        torch.matmul(a, b)
    times_ms = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b)
        end.record()
        end.synchronize()
        times_ms.append(start.elapsed_time(end))
    del a, b
    return statistics.median(times_ms)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=sorted(DTYPES), default="fp16")
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("measure_gemm.py: no CUDA device")
    dtype = DTYPES[args.dtype]
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} {args.dtype}", file=sys.stderr)
    with open(args.out, "w") as out:
        for m, n, k in SWEEP_FIT + SWEEP_HELD_OUT + LLM_LAYERS:
            ms = time_gemm(m, n, k, dtype, args.repeats)
            tflops = 2.0 * m * n * k / (ms * 1e-3) / 1e12
            out.write(f"{m}, {n}, {k}, {ms:.6f}ms, {tflops:.6f}Tflops\n")
            print(f"{m:6d} {n:6d} {k:6d} {ms:10.4f} ms {tflops:8.1f} TFLOP/s", file=sys.stderr)


if __name__ == "__main__":
    main()
