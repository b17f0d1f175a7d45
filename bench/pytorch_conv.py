#!/usr/bin/env python3
"""PyTorch's cuDNN convolution on the same layers, timed the way `cudnn-install bench` times its
pick, for the side-by-side comparison (bench/compare.py).

torch.backends.cudnn.benchmark = True (PyTorch times the engine configs of cuDNN's heuristics and
fallback list on the first call and keeps the fastest), channels_last for NHWC, TF32 allowed only
for "tf32". Inputs are torch.randn, as the tool's timing inputs are normal values.

Each configuration, after SETTLE_MS of untimed back-to-back calls (the tool does the same before its
finalist stage, so that both sides start their timing from sustained load, not from a GPU left idle
by cudnn.benchmark's host work or the tool's numerical check), is timed three ways with CUDA events,
per execution:
  back_to_back  PER_BATCH calls between two events, BATCHES times
  cuda_graph    PER_BATCH calls captured in one torch.cuda.CUDAGraph, replayed between two events
  single_call   one call between two events, BATCHES times (includes Python's dispatch)
each after untimed batches for WARMUP_MS (so the GPU runs at the clock it holds under sustained
load, as during training), and records min, median and max over the batches. The kernel time is the faster median of the
first two, as for the tool.

Usage: pytorch_conv.py SHAPES.json DTYPES LAYOUTS [BATCHES [PER_BATCH]] > results.json
  SHAPES.json comes from `cudnn-install bench --list-shapes`. PYTORCH_COOL_MS (default 0): before
  each configuration's settle, the GPU idles this long (the tool's --cool-ms, before its pick's
  timing): both sides' figures then follow the same history.
"""
import json
import os
import statistics
import sys
import time

import torch

WARMUP = 3
WARMUP_MS = 200  # then untimed batches for this long: the GPU slows to its sustained clock (as the tool does)
SETTLE_MS = 1000  # the tool's settle_ms
COOL_MS = float(os.environ.get("PYTORCH_COOL_MS", 0))  # the tool's cool_ms


def keep_busy(ms, launch, most=1000):
    """Untimed batches of `launch` until `ms` of GPU time have passed; at most `most` of them."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    elapsed, count = 0.0, 0
    while elapsed < ms and count < most:
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        elapsed += start.elapsed_time(stop)
        count += 1


def run_times(run, count):
    for _ in range(count):
        run()


def spread(samples):
    return {"min": min(samples), "median": statistics.median(samples), "max": max(samples)}


def timed(batches, per_batch, launch):
    keep_busy(WARMUP_MS, launch)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(batches):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / per_batch)
    return spread(samples)


def entry(method, batches, per_batch, ms=None, note=None):
    e = {"method": method, "warmup": WARMUP, "warmup_ms": WARMUP_MS, "executions_per_batch": per_batch,
         "batches": batches, "measured": ms is not None}
    if ms is not None:
        e["ms_per_execution"] = ms
    else:
        e["note"] = note
    return e


def graph_timing(run, batches, per_batch):
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # PyTorch's recipe: warm up on a side stream before capturing
        run_times(run, WARMUP)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        run_times(run, per_batch)
    graph.replay()
    torch.cuda.synchronize()
    return timed(batches, per_batch, graph.replay)


def measure(run, batches, per_batch):
    run_times(run, WARMUP)
    torch.cuda.synchronize()

    def back_to_back():
        run_times(run, per_batch)

    timings = {}
    try:  # in the tool's order: graph, back to back, single call
        timings["cuda_graph"] = entry("cuda_graph", batches, per_batch, graph_timing(run, batches, per_batch))
    except RuntimeError as e:
        timings["cuda_graph"] = entry("cuda_graph", batches, per_batch, note=str(e).splitlines()[0])
    timings["back_to_back"] = entry("back_to_back", batches, per_batch, timed(batches, per_batch, back_to_back))
    timings["single_call"] = entry("single_call", batches, 1, timed(batches, 1, run))
    return timings


def main():
    shapes = json.load(open(sys.argv[1]))
    dtypes = sys.argv[2].split(",")
    layouts = sys.argv[3].split(",")
    batches = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    per_batch = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = False
    torch_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "tf32": torch.float32}
    results = []
    for s in shapes:
        for dt in dtypes:
            torch.backends.cudnn.allow_tf32 = dt == "tf32"
            for layout in layouts:
                fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
                x = torch.randn(s["n"], s["c"], s["h"], s["w"], device="cuda", dtype=torch_dtype[dt]).to(memory_format=fmt)
                w = torch.randn(s["k"], s["c"], s["r"], s["s"], device="cuda", dtype=torch_dtype[dt]).to(memory_format=fmt)
                run = lambda: torch.nn.functional.conv2d(x, w, stride=s["stride"], padding=s["pad"])
                run()  # cudnn.benchmark chooses the engine here
                if COOL_MS > 0:  # as the tool's --cool-ms: nothing at all when 0
                    torch.cuda.synchronize()
                    time.sleep(COOL_MS / 1000)
                keep_busy(SETTLE_MS, lambda: run_times(run, per_batch), most=100000)  # as the tool does
                timings = measure(run, batches, per_batch)
                kernel = min((timings[m] for m in ("cuda_graph", "back_to_back") if timings[m]["measured"]),
                             key=lambda t: t["ms_per_execution"]["median"])
                ms = kernel["ms_per_execution"]
                results.append({"shape": s["name"], "dtype": dt, "layout": layout, "tier": "pytorch",
                                "kernel_method": kernel["method"], "median_ms": ms["median"], "min_ms": ms["min"],
                                "max_ms": ms["max"], "tflops": s["flops"] / (ms["median"] * 1e-3) / 1e12,
                                "timings": timings})
                single = timings["single_call"]["ms_per_execution"]["median"]
                print(f"{s['name']} {dt} {layout}: {results[-1]['tflops']:.1f} TFLOP/s ({kernel['method']} "
                      f"{ms['median']:.4f} ms, single call {single:.4f} ms)", file=sys.stderr)
                del x, w, run
                torch.cuda.empty_cache()
    json.dump({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
               "device": torch.cuda.get_device_name(0),
               "method": {"kernel_time": "per execution: the faster median of cuda_graph and back_to_back",
                          "timing": {"warmup": WARMUP, "warmup_ms": WARMUP_MS, "executions_per_batch": per_batch,
                                     "batches": batches},
                          "settle_ms": SETTLE_MS, "cool_ms": COOL_MS, "timing_data": "normal (torch.randn)",
                          "benchmark": "torch.backends.cudnn.benchmark"},
               "results": results}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
