#!/usr/bin/env python3
"""Per-word latency over a streamed file, one panel per setting: `hearsay-cli bench --streaming
... --json REPORT.json` records, for every committed word, the end of its audio and its tentative
and commit latency; this plots them for one model and one file, for each setting of the run.

usage: python3 scripts/bench/plot_streaming_latency.py REPORT.json MODEL FILE OUT.png
(FILE: the audio's file name as the report gives it, e.g. jfk.wav). Needs matplotlib
(tests/reference/requirements.txt).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(case):
    context = "full context" if case["audio_context_padding_s"] < 0 else f"window + {case['audio_context_padding_s']:g} s"
    return f"step {case['step_seconds']:g} s, {case['commit']}, silence {case['min_silence_ms']} ms, {context}"


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    report_path, model, audio, out = sys.argv[1:]
    with open(report_path) as f:
        report = json.load(f)
    cases = [c for c in report["streaming"] if c["model"] == model and os.path.basename(c["audio"]) == audio]
    if not cases:
        sys.exit(f"no case of {model} on {audio} in {report_path}")
    fig, axes = plt.subplots(len(cases), 1, figsize=(9, 2.2 * len(cases) + 0.8), sharex=True, sharey=True, squeeze=False)
    for ax, case in zip(axes[:, 0], cases):
        words = case.get("word_latencies", [])
        ends = [w[0] for w in words]
        ax.plot(ends, [w[1] for w in words], "o", ms=3, color="tab:blue", label="tentative")
        ax.plot(ends, [w[2] for w in words], "s", ms=3, color="tab:red", label="committed")
        final = case["final_latency"]["median"]
        ax.set_title(f"{label(case)}: commit median {case['commit_latency']['median']:.2f} s, final median {final:.2f} s, "
                     f"WER vs offline {100 * case['wer_vs_offline']:.1f}%", fontsize=8)
        ax.set_ylabel("latency, s")
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="upper right", fontsize=8)
    axes[-1, 0].set_xlabel(f"end of the word in {audio}, s")
    machine = report.get("machine", {})
    fig.suptitle(f"Hearsay streaming, {model}, {audio}, CPU {machine.get('cpuModel', '')}", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    main()
