#!/usr/bin/env python3
"""PyTorch's cuDNN convolution on the same layers, for the side-by-side comparison with
`cudnn-install bench`: torch.backends.cudnn.benchmark = True (it tries the algorithms, as
cudnnFind does), channels_last for NHWC, the same shapes, data types and timing method
(CUDA events, median of the timed runs after warm-up).

Usage: pytorch_conv.py SHAPES.json DTYPES LAYOUTS [REPEATS] > results.json
  SHAPES.json comes from `cudnn-install bench --list-shapes`.
"""
import json
import statistics
import sys

import torch


def main():
    shapes = json.load(open(sys.argv[1]))
    dtypes = sys.argv[2].split(",")
    layouts = sys.argv[3].split(",")
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 20
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
                for _ in range(5):  # cudnn.benchmark chooses the algorithm on the first call
                    run()
                torch.cuda.synchronize()
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                times = []
                for _ in range(repeats):
                    start.record()
                    run()
                    stop.record()
                    stop.synchronize()
                    times.append(start.elapsed_time(stop))
                ms = statistics.median(times)
                results.append({"shape": s["name"], "dtype": dt, "layout": layout, "median_ms": ms,
                                "tflops": s["flops"] / (ms * 1e-3) / 1e12})
                print(f"{s['name']} {dt} {layout}: {results[-1]['tflops']:.1f} TFLOP/s", file=sys.stderr)
                del x, w
    json.dump({"torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
               "device": torch.cuda.get_device_name(0), "results": results}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
