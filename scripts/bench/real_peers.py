#!/usr/bin/env python3
"""One timed transcription of a real recording by one peer, for the real-file section of
`hearsay-cli bench` (core/bench/real_file_bench.cpp runs this once per round, interleaved with
Hearsay's own runs, and takes the medians).

Programs:
  faster-whisper-float32, faster-whisper-int8   faster-whisper on the CTranslate2 directory (--ct2),
                                                compute_type float32 or int8, cpu_threads --threads
  whisper.cpp                                   whisper-cli (--whisper-cli) on the ggml file (--ggml)
Options shared with Hearsay: temperature 0 without fallback, conditioning on previous text, no VAD,
timestamps on, the given beam size (1: greedy) and language.

Timing: from the transcribe call on the file path through the last segment; the model load is
excluded (faster-whisper: loaded first, and warmed on one second of the file; whisper.cpp: its own
timings, total minus load). Tokens: the text tokens of all segments (ids below end-of-text).
Peak RSS: this process's (faster-whisper) or whisper-cli's (ru_maxrss of the child).
Writes one JSON object (the form of RealFileRun in core/bench/real_file_run.h).
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import wave

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def read_wav(path):
    import numpy as np
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getframerate() != 16000:
            raise ValueError(f"{path}: expected 16-bit PCM mono 16 kHz")
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return data.astype(np.float32) / 32768.0


def faster_whisper_run(args, compute_type):
    import faster_whisper
    import ctranslate2
    model = faster_whisper.WhisperModel(args.ct2, device="cpu", compute_type=compute_type,
                                        cpu_threads=args.threads, num_workers=1)
    options = dict(language=args.language, beam_size=args.beam, best_of=1, temperature=0.0,
                   condition_on_previous_text=True, vad_filter=False, without_timestamps=False,
                   word_timestamps=False)
    warm, _ = model.transcribe(read_wav(args.audio)[:16000], **options)
    list(warm)
    start = time.perf_counter()
    segments, info = model.transcribe(args.audio, **options)
    segments = list(segments)
    ms = (time.perf_counter() - start) * 1000.0
    tokens = [t for s in segments for t in s.tokens if t < args.eot]
    return {"program": f"faster-whisper-{compute_type}", "transcribeMs": ms, "textTokens": len(tokens),
            "tokens": tokens, "audioSeconds": info.duration, "text": "".join(s.text for s in segments),
            "peakResidentBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "version": f"faster-whisper {faster_whisper.__version__}, ctranslate2 {ctranslate2.__version__}"}


def whisper_cpp_version(cli):
    """whisper.cpp's version from the tree it was built in (build_whispercpp.sh: the pywhispercpp sdist)."""
    for up in range(1, 5):
        root = os.path.abspath(os.path.join(os.path.dirname(cli), *[".."] * up))
        for sub in ("", *[os.path.join(d, "whisper.cpp") for d in (os.listdir(root) if os.path.isdir(root) else [])
                          if d.startswith("pywhispercpp-")]):
            cmake = os.path.join(root, sub, "CMakeLists.txt")
            if os.path.isfile(cmake):
                m = re.search(r"project\(\"whisper\.cpp\"\s+VERSION\s+([0-9.]+)", open(cmake).read())
                if m:
                    return f"whisper.cpp {m.group(1)}"
    return "whisper.cpp (version unknown)"


def whisper_cpp_run(args):
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "out")
        argv = [args.whisper_cli, "-m", args.ggml, "-f", args.audio, "-t", str(args.threads), "-l", args.language,
                "-bs", str(args.beam), "-bo", "1", "-nf", "-ojf", "-of", prefix]
        run = subprocess.run(argv, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"whisper-cli failed ({run.returncode}): {run.stderr[-2000:]}")
        timings = {m.group(1): float(m.group(2))
                   for m in re.finditer(r"whisper_print_timings:\s+(\w+) time =\s+([0-9.]+) ms", run.stderr)}
        doc = json.load(open(prefix + ".json", encoding="utf-8", errors="replace"))
    tokens, text = [], ""
    for seg in doc["transcription"]:
        text += seg["text"]
        tokens += [t["id"] for t in seg.get("tokens", []) if t["id"] < args.eot]
    with wave.open(args.audio, "rb") as w:
        seconds = w.getnframes() / w.getframerate()
    return {"program": "whisper.cpp", "transcribeMs": timings["total"] - timings["load"], "textTokens": len(tokens),
            "tokens": tokens, "audioSeconds": seconds, "text": text,
            "peakResidentBytes": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024,
            "version": whisper_cpp_version(args.whisper_cli) + " whisper-cli, " +
                       ("beam search" if args.beam > 1 else "greedy")}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--program", required=True, choices=("faster-whisper-float32", "faster-whisper-int8", "whisper.cpp"))
    p.add_argument("--audio", required=True, help="16 kHz mono 16-bit WAV")
    p.add_argument("--ct2", help="CTranslate2 model directory (faster-whisper)")
    p.add_argument("--ggml", help="ggml file (whisper.cpp)")
    p.add_argument("--whisper-cli", help="whisper.cpp's whisper-cli")
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--language", default="en")
    p.add_argument("--eot", type=int, required=True, help="end-of-text id: tokens below it are text")
    p.add_argument("--name", help="the program's name in the results (default: --program)")
    p.add_argument("--json", required=True)
    args = p.parse_args()
    if args.program.startswith("faster-whisper"):
        result = faster_whisper_run(args, args.program.split("-")[-1])
    else:
        result = whisper_cpp_run(args)
    if args.name:
        result["program"] = args.name
    with open(args.json, "w") as out:
        json.dump(result, out)


if __name__ == "__main__":
    sys.exit(main())
