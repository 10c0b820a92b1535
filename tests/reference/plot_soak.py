#!/usr/bin/env python3
"""Plots a soak run (scripts/soak.sh): resident memory, lag and commit latency over the stream.

usage: python3 tests/reference/plot_soak.py build/soak/soak.csv OUT.png
Prints a markdown table (per 5 minutes of audio: RSS median, commit latency median and p90,
most behind, steps) for scripts/bench/RESULTS.md.
"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    steps_path, out = sys.argv[1], sys.argv[2]
    with open(steps_path) as f:
        steps = [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]
    with open(steps_path + ".latency.csv") as f:
        latency = [(float(r["stream_s"]), float(r["commit_latency_s"])) for r in csv.DictReader(f)]

    t = [s["stream_s"] / 60 for s in steps]
    fig, axes = plt.subplots(3, 1, figsize=(9, 8), sharex=True)
    axes[0].plot(t, [s["rss_mb"] for s in steps], lw=1)
    axes[0].set_ylabel("resident MB")
    axes[1].plot(t, [s["behind_s"] for s in steps], lw=1, color="tab:orange")
    axes[1].set_ylabel("audio waiting, s")
    axes[2].plot([a / 60 for a, _ in latency], [b for _, b in latency], ".", ms=2, color="tab:green")
    axes[2].set_ylabel("commit latency, s")
    axes[2].set_xlabel("stream time, minutes")
    for ax in axes:
        for i in range(1, len(steps)):
            if (steps[i]["self_cache"], steps[i]["cross_cache"]) != (steps[i - 1]["self_cache"], steps[i - 1]["cross_cache"]):
                ax.axvline(t[i], color="grey", lw=0.5, ls=":")
    fig.suptitle("Hearsay soak: tiny.en, CPU, real-time pace, cache switches flipped (dotted lines)")
    fig.tight_layout()
    fig.savefig(out, dpi=90)

    print("| minutes | RSS median MB | commit latency median / p90 s | most behind s | steps (decoded) |")
    print("|---|---:|---:|---:|---:|")
    end = steps[-1]["stream_s"]
    block = 300.0
    start = 0.0
    while start < end:
        rows = [s for s in steps if start <= s["stream_s"] < start + block]
        lat = sorted(b for a, b in latency if start <= a < start + block)
        if rows:
            p90 = lat[int(0.9 * (len(lat) - 1))] if lat else 0.0
            med = statistics.median(lat) if lat else 0.0
            print(f"| {start / 60:.0f}–{min(end, start + block) / 60:.0f} | {statistics.median(r['rss_mb'] for r in rows):.1f} | "
                  f"{med:.2f} / {p90:.2f} | {max(r['behind_s'] for r in rows):.2f} | {len(rows)} ({sum(int(r['decoded']) for r in rows)}) |")
        start += block


if __name__ == "__main__":
    main()
