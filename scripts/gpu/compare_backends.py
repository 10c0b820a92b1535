#!/usr/bin/env python3
"""Tokens of `hearsay-cli transcribe` on the CUDA backend against the CPU backend, on real weights.

Runs every clip once on the CPU (the reference) and once per CUDA configuration: fp32 and fp16,
greedy and beam search, each cache switched off, step graphs off. Writes a Markdown table of
token agreement per configuration and clip, and exits 1 when an fp32 configuration's tokens differ
from the CPU's (fp32 must match exactly; fp16 may round a close call the other way, and its
agreement is reported, not required).

    python3 scripts/gpu/compare_backends.py --cli build/bin/hearsay-cli --model MODEL \
        --out report.md CLIP.wav...

A clip list longer than 30 s exercises the windowing and the previous-text prompt.
"""
import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CONFIGS = [
    # name, precision, extra options
    ("fp32 beam 5", "fp32", []),
    ("fp32 greedy", "fp32", ["--beam-size", "1"]),
    ("fp32 greedy, no self cache", "fp32", ["--beam-size", "1", "--no-self-cache"]),
    ("fp32 greedy, no cross cache", "fp32", ["--beam-size", "1", "--no-cross-cache"]),
    ("fp32 beam 5, no step graphs", "fp32", ["--no-step-graphs"]),
    ("fp16 beam 5", "fp16", []),
    ("fp16 greedy", "fp16", ["--beam-size", "1"]),
    ("fp16 greedy, no self cache", "fp16", ["--beam-size", "1", "--no-self-cache"]),
    ("fp16 greedy, no cross cache", "fp16", ["--beam-size", "1", "--no-cross-cache"]),
]


def transcribe(cli, model, clip, backend, precision, extra, timeout):
    """(tokens per segment, text, seconds, error) of one transcription."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [cli, "transcribe", "--model", model, "--backend", backend, "--output-format", "json",
               "--output-dir", tmp, "--quiet"] + extra
        if backend == "cuda":
            cmd += ["--precision", precision]
        started = time.monotonic()
        try:
            done = subprocess.run(cmd + [clip], capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return None, "", timeout, f"timed out after {timeout} s"
        seconds = time.monotonic() - started
        if done.returncode != 0:
            return None, "", seconds, f"exit {done.returncode}: {done.stderr.strip()[-300:]}"
        report = json.loads((Path(tmp) / (Path(clip).name + ".json")).read_text())
    segments = report["segments"]
    return [s["tokens"] for s in segments], "".join(s["text"] for s in segments), seconds, ""


def first_difference(a, b):
    flat_a = [t for seg in a for t in seg]
    flat_b = [t for seg in b for t in seg]
    for i, (x, y) in enumerate(zip(flat_a, flat_b)):
        if x != y:
            return i, len(flat_a), len(flat_b)
    return (None if len(flat_a) == len(flat_b) else min(len(flat_a), len(flat_b))), len(flat_a), len(flat_b)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--timeout", type=int, default=120, help="seconds per transcription")
    parser.add_argument("clips", nargs="+")
    args = parser.parse_args()

    lines = [f"Model: `{Path(args.model).name}`. Reference: the CPU backend (float32), beam 5 and greedy.", "",
             "| configuration | clip | tokens | equal to CPU | first difference | CUDA s | CPU s |",
             "| --- | --- | ---: | --- | --- | ---: | ---: |"]
    fp32_failures = 0
    differences = []
    for clip in args.clips:
        references = {}
        for beam in ("beam 5", "greedy"):
            extra = ["--beam-size", "1"] if beam == "greedy" else []
            references[beam] = transcribe(args.cli, args.model, clip, "cpu", "fp32", extra, args.timeout)
            if references[beam][3]:
                print(f"CPU reference failed on {clip}: {references[beam][3]}", file=sys.stderr)
                return 2
        for name, precision, extra in CONFIGS:
            ref_tokens, ref_text, ref_s, _ = references["greedy" if "greedy" in name else "beam 5"]
            tokens, text, seconds, error = transcribe(args.cli, args.model, clip, "cuda", precision, extra, args.timeout)
            if error:
                verdict, where, count = "ERROR", error.replace("|", "/"), "-"
            else:
                index, n_cuda, n_cpu = first_difference(tokens, ref_tokens)
                count = str(n_cuda)
                verdict = "yes" if index is None else "NO"
                where = "" if index is None else f"token {index} of {n_cpu}"
                if index is not None:
                    differences.append(f"- {name}, {Path(clip).name}:\n  - CUDA: {text.strip()}\n  - CPU:  {ref_text.strip()}")
            if verdict != "yes" and precision == "fp32":
                fp32_failures += 1
            lines.append(f"| {name} | {Path(clip).name} | {count} | {verdict} | {where} | {seconds:.2f} | {ref_s:.2f} |")
            print(lines[-1], flush=True)
    if differences:
        lines += ["", "Texts where the tokens differ:", ""] + differences
    lines += ["", f"fp32 configurations differing from the CPU: {fp32_failures}"]
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(lines[-1])
    return 1 if fp32_failures else 0


if __name__ == "__main__":
    sys.exit(main())
