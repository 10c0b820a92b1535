#!/usr/bin/env python3
"""Markdown tables from `hearsay-cli bench --json` reports, for scripts/bench/RESULTS.md:
the fixed work with the peers of the same run and the ratios Hearsay/peer, the floors, and
the cache table. Plain Python, no dependencies.

  python3 scripts/bench/render_results.py REPORT.json [REPORT.json ...] > tables.md

Reports of CUDA runs (one per size, or several sizes each) also get the GPU tables: the device,
its measured and spec-sheet peaks, per size the figures against their floors, against
transformers' static cache measured in the same run, and against the GPU speed targets.
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
    rounds = max((len(m.get("rounds") or []) for m in doc.get("models", [])), default=0)
    if rounds:
        lines[-1] += (f", in each of {rounds} rounds taking turns with the peers (the peers first in every second "
                      "round); the ratios are the median of the rounds'")
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
    written = model.get("ratios") or {}
    for name, data in peers.items():
        if name in written:  # the bench's own: with --rounds, the median of the rounds' ratios
            ratios = [written[name].get(key) for key, _, _ in FIGURES]
        else:
            values = [data["figures"].get(key, {}).get("median") for key, _, _ in FIGURES]
            ratios = [h / v if v and v > 0 else None for h, v in zip(hearsay, values)]
        rows.append(f"| hearsay/{name} | " + " | ".join("–" if r is None else f"{r:.2f}×" for r in ratios) + " |")
    errors = (model.get("peers") or {}).get("errors", {})
    out = "\n".join(rows)
    if model.get("rounds"):
        out += "\n\n" + rounds_table(model["rounds"])
    if errors:
        out += "\n\n" + "\n".join(f"- {name} not measured: {text}" for name, text in errors.items())
    if peers:
        out += "\n\n" + "\n".join(f"- {name}: {data.get('version', '')}; {data.get('notes', '')}"
                                  for name, data in peers.items())
    return out


def rounds_table(rounds):
    """--rounds: each round's ratios, from the two programs' runs of that round."""
    rows = ["| round | first | peer | hearsay encoder ms | peer encoder ms | "
            + " | ".join(f"{label} ratio" for _, label, _ in FIGURES) + " | SGEMM probe GFLOP/s (before Hearsay; peers before / after) |",
            "|---:|---|---|---:|---:|" + "---:|" * len(FIGURES) + "---|"]
    for i, r in enumerate(rounds, 1):
        sgemm = r.get("sgemmProbeFlopsPerSecond") or []
        probes = (f"{sgemm[0] / 1e9:.1f}; {sgemm[1] / 1e9:.1f} / {sgemm[2] / 1e9:.1f}" if len(sgemm) == 3 else "–")
        for name, data in (r.get("peers") or {}).get("peers", {}).items():
            ratios = [(r.get("ratios") or {}).get(name, {}).get(key) for key, _, _ in FIGURES]
            rows.append(f"| {i} | {r['first']} | {name} | {r['fixedWork']['encoderMs']['median']:.1f} | "
                        f"{data['figures'].get('encoderMs', {}).get('median', 0):.1f} | "
                        + " | ".join("–" if x is None else f"{x:.2f}×" for x in ratios) + f" | {probes} |")
    return "\n".join(rows)


def cache_table(model):
    rows = ["| length | windows | caches | ms/token | peak RSS MiB | self cache MiB (allocated / in use) | cross cache MiB |",
            "|---:|---:|---|---:|---:|---:|---:|"]
    for r in model["cacheTable"]:
        rows.append(f"| {r['length']} | {r['windows']} | {r['mode']} | {r['msPerToken']:.2f} | "
                    f"{r['peakResidentBytes'] / 2**20:.0f} | {r['selfAllocatedBytes'] / 2**20:.2f} / "
                    f"{r['selfInUseBytes'] / 2**20:.2f} | {r['crossAllocatedBytes'] / 2**20:.2f} |")
    return "\n".join(rows)


# --- GPU tables -----------------------------------------------------------------------------------

# The GPU speed targets (H100/H200, random weights of real dimensions): (size, figure) -> at most ms.
TARGETS = [("large-v3", "encoderMs", 6.0), ("large-v3", "decodeMsPerToken", 0.8),
           ("large-v3-turbo", "decodeMsPerToken", 0.15), ("tiny", "decodeMsPerToken", 0.05)]
SIZE_ORDER = ["tiny", "base", "small", "medium", "large-v3", "large-v3-turbo"]
STATIC_PEERS = ("transformers-static", "transformers-static-compiled")


def is_gpu(doc):
    return doc.get("settings", {}).get("backend") == "cuda" or any(
        str(m.get("backend", "")).startswith("cuda") for m in doc.get("models", []))


def gpu_header(doc):
    m = doc["machine"]
    g = m.get("gpu") or {}
    peaks = doc.get("peaks") or {}
    lines = [f"- date: {doc['date']}; command: `{doc['command']}`; commit {doc['build']['commit']} ({doc['build']['buildType']})"]
    if g:
        lines.append(f"- GPU: **{g['name']}**, sm_{g['computeCapability'].replace('.', '')}, {g['multiprocessors']} SMs, "
                     f"{g['memoryBytes'] / 2**30:.1f} GiB, SM clock {g['smClockMhz']:.0f} MHz, memory clock "
                     f"{g['memoryClockMhz']:.0f} MHz × {g['memoryBusBits']} bits; CUDA driver {g.get('driverVersion')}, "
                     f"runtime {g.get('runtimeVersion')}" + (f"; {m['gpuDriver']}" if m.get("gpuDriver") else ""))
    else:
        lines.append(f"- GPU: {m.get('gpuName') or 'not described (no CUDA device information in the report)'}")
    lines.append(f"- host: {m['cpuModel']}, {m['logicalCpus']} CPUs, {m['memoryBytes'] / 2**30:.0f} GiB, {m['kernel']}")
    settings = doc["settings"]
    lines.append(f"- precision {settings.get('precision', '?')}, model files {settings['format']} {settings['dtype']}, "
                 f"seed {settings['seed']}")
    if peaks:
        line = (f"- peaks for the floors: {peaks['flopsPerSecond'] / 1e12:.1f} TFLOP/s ({peaks['flopsSource']}); "
                f"{peaks['bytesPerSecond'] / 1e9:.0f} GB/s ({peaks['bytesSource']})")
        if peaks.get("specBytesPerSecond"):
            line += (f"; spec sheet {peaks['specFlopsPerSecond'] / 1e12:.1f} TFLOP/s and "
                     f"{peaks['specBytesPerSecond'] / 1e12:.2f} TB/s ({peaks['specSource']}): measured "
                     f"{100 * peaks['flopsPerSecond'] / peaks['specFlopsPerSecond']:.0f}% and "
                     f"{100 * peaks['bytesPerSecond'] / peaks['specBytesPerSecond']:.0f}% of them")
        lines.append(line)
    w = doc["work"]
    lines.append(f"- work: {w['decodeSteps']} single-token steps, {w['batchSteps']} steps × {w['batchBeams']} beams, "
                 f"{w['promptTokens']}-token prompt × {w['promptRuns']}; median of {w['repeats']} after {w['warmup']} warm-up")
    rounds = max((len(m.get("rounds") or []) for m in doc.get("models", [])), default=0)
    if rounds:
        lines[-1] += (f", in each of {rounds} rounds taking turns with the peers (the peers first in every second "
                      "round); the ratios are the median of the rounds'")
    return "\n".join(lines)


def size_key(model):
    name = model["name"]
    return (SIZE_ORDER.index(name) if name in SIZE_ORDER else len(SIZE_ORDER), name)


def hearsay_figure(model, key):
    return model["fixedWork"][key]["median"]


def gpu_floor_table(models):
    """Per size: each figure, its floor, and floor ÷ measured (100% = at the floor)."""
    rows = ["| size | " + " | ".join(f"{label} (floor; % of floor speed)" for _, label, _ in FIGURES) + " | floor bytes/elem (weights, self KV[, cross KV]) |",
            "|---|" + "---:|" * (len(FIGURES) + 1)]
    for model in models:
        floors = model.get("floors") or {}
        cells = []
        for key, _, digits in FIGURES:
            v, f = hearsay_figure(model, key), floors.get(key)
            cells.append(f"{fmt(v, digits + 1)} ({fmt(f, digits + 1)}; {100 * f / v:.0f}%)" if f and v else fmt(v, digits + 1))
        eb = model.get("elementBytes") or {}
        cross = f", {eb['crossCache']}" if "crossCache" in eb else ""
        rows.append(f"| {model['name']} | " + " | ".join(cells) + f" | {eb.get('weights', '–')}, {eb.get('caches', '–')}{cross} |")
    return "\n".join(rows)


def gpu_peer_table(models):
    """Per size and figure: Hearsay, transformers' static cache in the same run, and the ratio."""
    rows = ["| size | peer | " + " | ".join(f"{label}: hearsay / peer = ratio" for _, label, _ in FIGURES) + " |",
            "|---|---|" + "---:|" * len(FIGURES)]
    notes = []
    for model in models:
        block = model.get("peers") or {}
        peers = block.get("peers", {})
        shown = [p for p in STATIC_PEERS if p in peers] or list(peers)
        for name in shown:
            cells = []
            for key, _, digits in FIGURES:
                h = hearsay_figure(model, key)
                v = peers[name]["figures"].get(key, {}).get("median")
                cells.append(f"{fmt(h, digits + 1)} / {fmt(v, digits + 1)} = " + (f"**{h / v:.3g}×**" if v and v > 0 else "–"))
            rows.append(f"| {model['name']} | {name} | " + " | ".join(cells) + " |")
            note = f"- {model['name']}, {name}: {peers[name].get('version', '')}; {peers[name].get('notes', '')}"
            if "compileAndFirstRunS" in peers[name]:
                note += f"; compile + first run {peers[name]['compileAndFirstRunS']:.0f} s"
            notes.append(note)
        for name, text in block.get("errors", {}).items():
            rows.append(f"| {model['name']} | {name} | not measured: {text} |" + " |" * (len(FIGURES) - 1))
        if not block:
            rows.append(f"| {model['name']} | – | no peers in this run |" + " |" * (len(FIGURES) - 1))
    return "\n".join(rows) + ("\n\n" + "\n".join(notes) if notes else "")


def gpu_target_table(models):
    by_name = {}
    for model in models:
        by_name.setdefault("large-v3-turbo" if model["name"] == "turbo" else model["name"], model)
    labels = {key: label for key, label, _ in FIGURES}
    rows = ["| size | figure | target | measured | floor | met |", "|---|---|---:|---:|---:|---|"]
    for size, key, limit in TARGETS:
        model = by_name.get(size)
        if model is None:
            rows.append(f"| {size} | {labels[key]} | ≤ {limit} | not measured | – | – |")
            continue
        v = hearsay_figure(model, key)
        f = (model.get("floors") or {}).get(key)
        rows.append(f"| {size} | {labels[key]} | ≤ {limit} | {v:.3f} | {fmt(f, 3)} | {'yes' if v <= limit else '**no**'} |")
    return "\n".join(rows)


def render_gpu(docs):
    models = []
    for doc in docs:
        print(gpu_header(doc))
        print()
        models.extend(m for m in doc["models"])
    models.sort(key=size_key)
    print("#### Hearsay on the GPU against the floors (ms; % of floor speed = floor ÷ measured)\n")
    print(gpu_floor_table(models))
    print("\n#### Against transformers' static cache, same GPU, same weights, same run\n")
    print(gpu_peer_table(models))
    print("\n#### The targets\n")
    print(gpu_target_table(models))
    for model in models:
        if model["cacheTable"]:
            print(f"\nCache table, {model['name']} (GPU; peak RSS is host memory):\n")
            print(cache_table(model))


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: render_results.py REPORT.json [REPORT.json ...]")
    docs = [json.load(open(path)) for path in sys.argv[1:]]
    gpu = [d for d in docs if is_gpu(d)]
    if gpu:
        render_gpu(gpu)
    for doc in docs:
        if doc in gpu:
            continue
        render_cpu(doc)


def render_cpu(doc):
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
