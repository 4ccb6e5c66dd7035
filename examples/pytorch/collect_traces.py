#!/usr/bin/env python3
"""Collects the two traces `snr et link` joins, from a real PyTorch training
job: the host execution trace (ExecutionTraceObserver) and the Kineto device
trace of the same profiled step, per rank.

The job is a small Transformer encoder (2 layers by default, d_model 512,
8 heads, batch 8 x 128 tokens, AdamW) trained under DistributedDataParallel;
--layers and --active-steps make larger traces (for linking benchmarks).
--model cnn trains a small residual convolutional network instead (convolution,
batch norm, pooling: other operators, kernels and argument shapes);
--autocast bf16 runs the forward pass under autocast (casts and mixed dtypes in
the traces) and --compile wraps the model in torch.compile (its Dynamo and
compiled-region records appear in both traces; which kernels run depends on
the compiler backend the machine has). With
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


class ResidualBlock(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.norm1 = torch.nn.BatchNorm2d(channels)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.norm2 = torch.nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.norm1(self.conv1(x)))
        return torch.relu(x + self.norm2(self.conv2(y)))


def build_model(kind, layers):
    if kind == "cnn":
        blocks = [ResidualBlock(64) for _ in range(layers)]
        return torch.nn.Sequential(torch.nn.Conv2d(3, 64, 7, stride=2, padding=3), torch.nn.ReLU(),
                                   torch.nn.MaxPool2d(2), *blocks, torch.nn.AdaptiveAvgPool2d(1),
                                   torch.nn.Flatten(), torch.nn.Linear(64, 10))
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048, batch_first=True)
    return torch.nn.Sequential(torch.nn.TransformerEncoder(layer, num_layers=layers), torch.nn.Linear(512, 512))


def batch(kind):
    if kind == "cnn":
        return torch.randn(16, 3, 128, 128, device="cuda"), torch.randint(0, 10, (16,), device="cuda")
    return torch.randn(8, 128, 512, device="cuda"), torch.randn(8, 128, 512, device="cuda")


def loss_of(kind, output, target):
    # Under autocast the output is bf16; the loss is taken in fp32. (No cast
    # otherwise: even a no-op .float() would add an aten::to to the traces.)
    if output.dtype != torch.float32:
        output = output.float()
    if kind == "cnn":
        return torch.nn.functional.cross_entropy(output, target)
    return torch.nn.functional.mse_loss(output, target)


def worker(rank, world, backend, out_dir, port, layers, active_steps, kind, autocast, compiled):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    device_index = rank % torch.cuda.device_count() if backend == "gloo" else rank
    torch.cuda.set_device(device_index)
    dist.init_process_group(backend, rank=rank, world_size=world)
    torch.manual_seed(rank)
    model = DistributedDataParallel(build_model(kind, layers).cuda(), device_ids=[device_index])
    if compiled:
        model = torch.compile(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    inputs, target = batch(kind)

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
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=autocast == "bf16"):
                output = model(inputs)
            loss = loss_of(kind, output, target)
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
    parser.add_argument("--model", choices=["transformer", "cnn"], default="transformer")
    parser.add_argument("--autocast", choices=["off", "bf16"], default="off")
    parser.add_argument("--compile", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    mp.spawn(worker, args=(args.ranks, args.backend, args.out, args.port, args.layers, args.active_steps,
                           args.model, args.autocast, args.compile), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
