#!/usr/bin/env python3
"""Word error rates of each program of `hearsay-cli bench --real-files` reports against
faster-whisper float32's transcript of the same file (the accuracy of 8-bit and 5-bit weights
measured against the full-precision model, not against the reference text).

    .venv-bench/bin/python scripts/bench/wer_against_float32.py REPORT.json [REPORT.json ...]

Prints the errors per file, then per report, model and program the totals over all files and
without the files named by --leave-out (default librivox-sonnet-1.wav, on which faster-whisper
float32 itself loops on base). The normaliser and the word-level edit distance are those of
tests/reference/gen_real_golden.py (the same as the C++ wordErrors)."""

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "reference"))
from gen_real_golden import word_errors  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reports", nargs="+")
    parser.add_argument("--leave-out", default="librivox-sonnet-1.wav")
    args = parser.parse_args()
    totals = {}
    for report in args.reports:
        for case in json.loads(Path(report).read_text())["cases"]:
            programs = {p["program"]: p for p in case["programs"]}
            reference = programs.get("faster-whisper-float32")
            if not reference:
                sys.exit(f"{report}: no faster-whisper-float32 in {case['audio']}")
            model = Path(case["model"]).name
            audio = Path(case["audio"]).name
            for name, program in programs.items():
                if name == "faster-whisper-float32":
                    continue
                errors, words = word_errors(reference["text"], program.get("text", ""))
                print(f"{Path(report).name}  {model:8}  {audio:32}  {name:24}  {errors:4d} / {words:4d}")
                t = totals.setdefault((Path(report).name, model, name), [0, 0, 0, 0])
                t[0] += errors
                t[1] += words
                if audio != args.leave_out:
                    t[2] += errors
                    t[3] += words
    print()
    for (report, model, name), (e, n, e2, n2) in sorted(totals.items()):
        print(f"{report}  {model:8}  {name:24}  all {e}/{n} = {100 * e / n:.2f}%   "
              f"without {args.leave_out} {e2}/{n2} = {100 * e2 / n2:.2f}%")


if __name__ == "__main__":
    main()
