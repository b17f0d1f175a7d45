#!/usr/bin/env python3
"""The GPU's clock and power during each step of a bench/run-on-device.sh run (markdown).

power.csv is `nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,
clocks_event_reasons.active --format=csv -lms 100` over the whole run; steps.csv has a line
"FILE,start|end,TIMESTAMP" per step on the same clock. For each step: the samples taken while it
ran, the median and range of the SM clock, the median SM clock of the samples in which the software
power cap held the clock down (reason bit 0x4 with the clock more than two 15 MHz steps below the
run's highest: the GPU at full load; the bit stays on for a few samples after the load ends, at
the full clock), the median power (nvidia-smi
averages it over about a second, so it lags the load), the hottest temperature, and the share of
samples that were power-capped or held down by a thermal or hardware slowdown (0x8, 0x20, 0x40, 0x80).

Then, when the run has them (the nhwc mode), the large 3x3 FP16 timed alone on each side
(power-ours-large.json, power-pytorch-large.json): its TFLOP/s against the datasheet's dense peak,
which assumes the GPU's maximum SM clock (the JSON's device.clock_mhz), and against the peak at the
clock the power cap held during that step.

Usage: power_summary.py POWER.csv STEPS.csv > power.md
"""
import csv
import datetime
import json
import os
import statistics
import sys

POWER_CAP = 0x4
SLOWDOWNS = 0x8 | 0x20 | 0x40 | 0x80  # hardware slowdown, software and hardware thermal, power brake


def when(text):
    return datetime.datetime.strptime(text.strip(), "%Y/%m/%d %H:%M:%S.%f")


def number(text):
    try:
        return float(text.strip().split()[0])
    except (ValueError, IndexError):
        return None


def samples(path):
    """(time, sm MHz, watts, degrees C, reasons) of each well-formed line."""
    out = []
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) < 5 or row[0].startswith("timestamp"):
                continue
            try:
                t, reasons = when(row[0]), int(row[4].strip(), 16)
            except ValueError:
                continue
            mhz, watts, temp = number(row[1]), number(row[2]), number(row[3])
            if mhz is not None and watts is not None:
                out.append((t, mhz, watts, temp, reasons))
    return out


def steps(path):
    """[(file, start, end)] in the order they ran."""
    starts, out = {}, []
    with open(path) as f:
        for name, edge, stamp in csv.reader(f):
            if edge == "start":
                starts[name] = when(stamp)
            elif name in starts:
                out.append((name, starts.pop(name), when(stamp)))
    return out


def share(rows, bits):
    return 100.0 * sum(1 for r in rows if r[4] & bits) / len(rows)


def step_table(power, ran):
    top = max(r[1] for r in power)
    print("| step | samples | SM clock MHz, median [min-max] | SM clock MHz while power-capped, median | "
          "power W, median | hottest °C | power-capped | thermal or hardware slowdown |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    held = {}
    for name, start, end in ran:
        rows = [r for r in power if start <= r[0] <= end]
        if not rows:
            print(f"| {name} | 0 | | | | | | |")
            continue
        mhz = [r[1] for r in rows]
        capped = [r[1] for r in rows if r[4] & POWER_CAP and r[1] < top - 30]
        if capped:
            held[name] = statistics.median(capped)
        temps = [r[3] for r in rows if r[3] is not None]
        print(f"| {name} | {len(rows)} | {statistics.median(mhz):.0f} [{min(mhz):.0f}-{max(mhz):.0f}] | "
              f"{f'{held[name]:.0f}' if capped else '-'} | "
              f"{statistics.median(r[2] for r in rows):.0f} | {max(temps) if temps else 0:.0f} | "
              f"{share(rows, POWER_CAP):.0f} % | {share(rows, SLOWDOWNS):.0f} % |")
    return held


def large_alone(directory, held):
    ours_path, torch_path = (os.path.join(directory, f) for f in ("power-ours-large.json", "power-pytorch-large.json"))
    if not os.path.exists(ours_path):
        return
    ours = json.load(open(ours_path))
    peak, max_mhz = ours["device"]["peak_tflops"]["fp16"], ours["device"]["clock_mhz"]
    print(f"\nThe large 3x3 FP16 NHWC timed alone (dense peak {peak:g} TFLOP/s at {max_mhz:g} MHz):\n")
    print("| side | TFLOP/s | % of dense peak | SM clock while power-capped, MHz | % of the peak at that clock |")
    print("|---|---:|---:|---:|---:|")
    for side, path in (("cudnn-install", ours_path), ("PyTorch", torch_path)):
        name = os.path.basename(path)
        if not os.path.exists(path) or name not in held:
            continue
        results = [r for r in json.load(open(path)).get("results", []) if "tflops" in r and r.get("dtype") == "fp16"]
        for r in results:
            at_clock = peak * held[name] / max_mhz
            print(f"| {side} | {r['tflops']:.1f} | {100 * r['tflops'] / peak:.1f} % | {held[name]:.0f} | "
                  f"{100 * r['tflops'] / at_clock:.1f} % |")


def main():
    power_path, steps_path = sys.argv[1], sys.argv[2]
    power = samples(power_path)
    if not power:
        print(f"no clock samples in {power_path}")
        return
    held = step_table(power, steps(steps_path))
    large_alone(os.path.dirname(power_path), held)


if __name__ == "__main__":
    main()
