#!/usr/bin/env python3
"""Markdown tables from a `hearsay-cli bench --json` report, for scripts/bench/RESULTS.md:
the fixed work with the peers of the same run and the ratios Hearsay/peer, the floors, and
the cache table. Plain Python, no dependencies.

  python3 scripts/bench/render_results.py REPORT.json > tables.md
"""

import json
import sys

FIGURES = [("encoderMs", "encoder ms", 1), ("decodeMsPerToken", "decode ms/token", 3),
           ("batchMsPerToken", "batch ms/token", 3), ("promptMsPerToken", "prompt ms/token", 4)]


def fmt(value, digits):
    return "–" if value is None else f"{value:.{digits}f}"


def header(doc):
    m, b = doc["machine"], doc["build"]
    peaks = doc.get("peaks") or {}
    lines = [
        f"- date: {doc['date']}; command: `{doc['command']}`",
        f"- machine: {m['cpuModel']}, {m['logicalCpus']} CPUs ({m['cpuFlags']}), "
        f"{m['memoryBytes'] / 2**30:.1f} GiB, {m['kernel']}; load average {m.get('loadAverage', 0):.2f} at the start, "
        f"{m.get('loadAverageAtEnd', 0):.2f} at the end" + (f"; GPU {m['gpuName']} ({m['gpuDriver']})" if m.get("gpuName") else ""),
        f"- build: {b['buildType']}, {b['compiler']}, commit {b['commit']}; backend {doc['settings']['backend']}, "
        f"{doc['settings']['threads']} threads, model files {doc['settings']['format']} {doc['settings']['dtype']}, "
        f"seed {doc['settings']['seed']}",
    ]
    if peaks:
        lines.append(f"- peaks for the floors: {peaks['flopsPerSecond'] / 1e9:.0f} GFLOP/s ({peaks['flopsSource']}); "
                     f"{peaks['bytesPerSecond'] / 1e9:.1f} GB/s ({peaks['bytesSource']})")
    w = doc["work"]
    lines.append(f"- work: {w['decodeSteps']} single-token steps, {w['batchSteps']} steps × {w['batchBeams']} beams, "
                 f"{w['promptTokens']}-token prompt × {w['promptRuns']}; median of {w['repeats']} after {w['warmup']} warm-up")
    return "\n".join(lines)


def fixed_work(model):
    rows = ["| " + model["name"] + " | " + " | ".join(label for _, label, _ in FIGURES) + " |",
            "|---|" + "---:|" * len(FIGURES)]
    hearsay = [model["fixedWork"][key]["median"] for key, _, _ in FIGURES]
    rows.append("| **hearsay** | " + " | ".join(f"**{fmt(v, d)}**" for v, (_, _, d) in zip(hearsay, FIGURES)) + " |")
    if model.get("floors"):
        rows.append("| floor | " + " | ".join(fmt(model["floors"][key], d) for key, _, d in FIGURES) + " |")
    peers = (model.get("peers") or {}).get("peers", {})
    for name, data in peers.items():
        values = [data["figures"].get(key, {}).get("median") for key, _, _ in FIGURES]
        rows.append(f"| {name} | " + " | ".join(fmt(v, d) for v, (_, _, d) in zip(values, FIGURES)) + " |")
    for name, data in peers.items():
        values = [data["figures"].get(key, {}).get("median") for key, _, _ in FIGURES]
        ratios = [h / v if v and v > 0 else None for h, v in zip(hearsay, values)]
        rows.append(f"| hearsay/{name} | " + " | ".join("–" if r is None else f"{r:.2f}×" for r in ratios) + " |")
    errors = (model.get("peers") or {}).get("errors", {})
    out = "\n".join(rows)
    if errors:
        out += "\n\n" + "\n".join(f"- {name} not measured: {text}" for name, text in errors.items())
    if peers:
        out += "\n\n" + "\n".join(f"- {name}: {data.get('version', '')}; {data.get('notes', '')}"
                                  for name, data in peers.items())
    return out


def cache_table(model):
    rows = ["| length | windows | caches | ms/token | peak RSS MiB | self cache MiB (allocated / in use) | cross cache MiB |",
            "|---:|---:|---|---:|---:|---:|---:|"]
    for r in model["cacheTable"]:
        rows.append(f"| {r['length']} | {r['windows']} | {r['mode']} | {r['msPerToken']:.2f} | "
                    f"{r['peakResidentBytes'] / 2**20:.0f} | {r['selfAllocatedBytes'] / 2**20:.2f} / "
                    f"{r['selfInUseBytes'] / 2**20:.2f} | {r['crossAllocatedBytes'] / 2**20:.2f} |")
    return "\n".join(rows)


def main():
    doc = json.load(open(sys.argv[1]))
    print(header(doc))
    for model in doc["models"]:
        d = model["dims"]
        print(f"\n#### {model['name']} ({d['nAudioState']}×{d['nAudioLayer']}×{d['nAudioHead']}, {model['backend']})\n")
        print(fixed_work(model))
        if model["cacheTable"]:
            print(f"\nCache table, {model['name']}:\n")
            print(cache_table(model))


if __name__ == "__main__":
    main()
