#!/usr/bin/env python3
"""Sums Nsight Compute's per-launch kernel times (`ncu --csv --metrics gpu__time_duration.sum`) by
kernel: launches, total and mean microseconds, share of all kernel time, as a Markdown table.
Used by `scripts/gpu_session.sh profile`; standard library only (it runs on the GPU machine).

    kernel_times.py NCU.csv [--step-marker NAME]

--step-marker NAME: a decode step begins at each launch of a kernel whose name contains NAME (the
token embedding, say); only whole steps are counted (the encoder before the first and a cut-off
step at the end are left out), and the table gives each kernel's time per step."""
import argparse
import collections
import csv
import re
import statistics
import sys

UNITS = {"nsecond": 1e-3, "ns": 1e-3, "usecond": 1.0, "us": 1.0, "msecond": 1e3, "ms": 1e3, "second": 1e6, "s": 1e6}


def launches(path):
    """(id, name, microseconds) for each profiled launch, in launch order."""
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # ncu and the program print other lines
    rows = []
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        rows.append((int(row["ID"]), row["Kernel Name"], value * UNITS.get(row.get("Metric Unit", "nsecond"), 1e-3)))
    rows.sort()
    return rows


def short_name(name):
    """'void hearsay::<unnamed>::partialKernel<2, __half>(...)' -> 'partialKernel<2, __half>'."""
    name = name.replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    name = re.sub(r"^void ", "", name)
    depth, end = 0, len(name)
    for i, ch in enumerate(name):  # the argument list: the first '(' outside template brackets
        depth += (ch == "<") - (ch == ">")
        if ch == "(" and depth == 0:
            end = i
            break
    name = name[:end].strip()
    head = name.split("<")[0]
    return name[len(head) - len(head.split("::")[-1]):]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv")
    parser.add_argument("--step-marker", default="")
    args = parser.parse_args()
    rows = launches(args.csv)
    if not rows:
        print(f"kernel_times: no gpu__time_duration.sum rows in {args.csv}", file=sys.stderr)
        return 1
    steps = 0
    if args.step_marker:
        starts = [i for i, r in enumerate(rows) if args.step_marker in r[1]]
        if len(starts) < 2:
            print(f"kernel_times: fewer than two launches named like '{args.step_marker}'", file=sys.stderr)
            return 1
        step_us = [sum(r[2] for r in rows[a:b]) for a, b in zip(starts, starts[1:])]
        steps = len(step_us)
        rows = rows[starts[0]:starts[-1]]
        print(f"{steps} whole decode steps: {statistics.median(step_us):.1f} µs of kernels per step (median), "
              f"{len(rows) / steps:.1f} launches per step")
    by_name = collections.defaultdict(lambda: [0, 0.0])
    for _, name, us in rows:
        entry = by_name[short_name(name) or name]
        entry[0] += 1
        entry[1] += us
    total = sum(us for _, _, us in rows)
    print(f"{len(rows)} launches, {total:.1f} µs of kernel time\n")
    print("| kernel | launches | total µs | mean µs | share |" + (" µs per step |" if steps else ""))
    print("|---|---:|---:|---:|---:|" + ("---:|" if steps else ""))
    for name, (count, us) in sorted(by_name.items(), key=lambda kv: -kv[1][1]):
        line = f"| `{name[:70]}` | {count} | {us:.1f} | {us / count:.2f} | {100 * us / total:.1f}% |"
        if steps:
            line += f" {us / steps:.2f} |"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
