#!/usr/bin/env python3
"""Collects the two traces `snr et link` joins, from a real PyTorch training
job: the host execution trace (ExecutionTraceObserver) and the Kineto device
trace of the same profiled step, per rank.

The job is a small Transformer encoder (2 layers by default, d_model 512,
8 heads, batch 8 x 128 tokens, AdamW) trained under DistributedDataParallel;
--layers and --active-steps make larger traces (for linking benchmarks). With
--backend nccl every rank needs its own GPU; --backend gloo also runs several
ranks on one GPU (gradients are all-reduced through host memory).

Per rank R it writes OUT/rankR.host_et.json and OUT/rankR.kineto.json. The
profiler waits one step, warms up one, records --active-steps (default one;
the ET observer records the same steps), so both traces describe the same
training steps.

Usage: collect_traces.py --ranks 2 --backend gloo --out traces/
Then:  snr et link --host traces/rank0.host_et.json --device traces/rank0.kineto.json -o r0.json
"""
import argparse
import os

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel
from torch.profiler import ExecutionTraceObserver, ProfilerActivity, profile, schedule


def build_model(layers):
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    return torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=layers), torch.nn.Linear(512, 512))


def worker(rank, world, backend, out_dir, port, layers, active_steps):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    device_index = rank % torch.cuda.device_count() if backend == "gloo" else rank
    torch.cuda.set_device(device_index)
    dist.init_process_group(backend, rank=rank, world_size=world)
    torch.manual_seed(rank)
    model = DistributedDataParallel(build_model(layers).cuda(), device_ids=[device_index])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = torch.randn(8, 128, 512, device="cuda")
    target = torch.randn(8, 128, 512, device="cuda")

    host_path = os.path.join(out_dir, f"rank{rank}.host_et.json")
    kineto_path = os.path.join(out_dir, f"rank{rank}.kineto.json")
    observer = ExecutionTraceObserver()
    observer.register_callback(host_path)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=active_steps),
                 on_trace_ready=lambda p: p.export_chrome_trace(kineto_path),
                 execution_trace_observer=observer) as profiler:
        for _ in range(2 + active_steps):
            optimizer.zero_grad(set_to_none=True)
            loss = torch.nn.functional.mse_loss(model(tokens), target)
            loss.backward()
            optimizer.step()
            torch.cuda.synchronize()
            profiler.step()
    observer.unregister_callback()
    dist.barrier()
    dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--backend", choices=["nccl", "gloo"], default="nccl")
    parser.add_argument("--out", required=True)
    parser.add_argument("--port", type=int, default=29531)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--active-steps", type=int, default=1)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    mp.spawn(worker, args=(args.ranks, args.backend, args.out, args.port, args.layers, args.active_steps), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
