#!/usr/bin/env python3
"""Golden files for word timestamps: faster-whisper 1.2.1 (CTranslate2 4.8.5, float32, CPU) with
word_timestamps=True on the real tiny.en and base weights (scripts/fetch_real_models.sh): greedy
(beam_size 1), temperature 0 without fallback, condition on previous text, no VAD. Clips: the real
speech of ../shared/data (jfk, speech-30s-a, speech-30s-b) and the English espeak-ng sentences of
tests/data/real/speech.tsv (rendered by make_speech.sh), as the `real` tests use them.

Per model and clip it records each segment's start, end and text and its words as
[word, start, end, probability]. Writes tests/data/real/words-<model>.json.

Usage: .venv-reference/bin/python tests/reference/gen_word_golden.py [--models DIR] [--only tiny.en]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import ctranslate2
import faster_whisper
from faster_whisper import WhisperModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_real_golden import HERE, OUT, ROOT, checksum, load_clips  # noqa: E402

CLIPS = ["jfk", "speech-30s-a", "speech-30s-b"] + [f"en-{i:02d}" for i in range(1, 13)]


def run(model, audio):
    segments, info = model.transcribe(
        audio, language=None, task="transcribe", beam_size=1, best_of=5, temperature=0.0,
        compression_ratio_threshold=2.4, log_prob_threshold=-1.0, no_speech_threshold=0.6,
        condition_on_previous_text=True, initial_prompt=None, suppress_blank=True, suppress_tokens=[-1],
        without_timestamps=False, max_initial_timestamp=1.0, word_timestamps=True, vad_filter=False,
        hallucination_silence_threshold=None)
    out = []
    for s in segments:
        out.append({"start": round(s.start, 3), "end": round(s.end, 3), "text": s.text,
                    "words": [[w.word, round(w.start, 3), round(w.end, 3), round(w.probability, 4)] for w in s.words]})
    return info.language, out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_models = Path(os.environ.get("HEARSAY_TEST_MODELS", Path.home() / ".cache/hearsay/test-models"))
    parser.add_argument("--models", type=Path, default=default_models)
    parser.add_argument("--only", action="append", help="model name (tiny.en, base); repeatable")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        speech_dir = Path(tmp)
        subprocess.run(["bash", str(HERE / "make_speech.sh"), str(speech_dir)], check=True)
        clips = load_clips(speech_dir)
        for model_name in args.only or ["tiny.en", "base"]:
            model = WhisperModel(str(args.models / model_name), device="cpu", compute_type="float32", cpu_threads=2)
            doc = {"generator": "tests/reference/gen_word_golden.py",
                   "environment": {"faster_whisper": faster_whisper.__version__, "ctranslate2": ctranslate2.__version__,
                                   "numpy": np.__version__, "compute_type": "float32", "cpu_threads": 2},
                   "model": model_name,
                   "options": {"word_timestamps": True, "beam_size": 1, "temperature": 0.0, "fallback": False,
                               "condition_on_previous_text": True, "vad_filter": False},
                   "clips": {}}
            for name in CLIPS:
                clip = clips[name]
                language, segments = run(model, clip["audio"])
                doc["clips"][name] = {"source": clip["source"], "samples": int(clip["audio"].size),
                                      "checksum": checksum(clip["audio"]), "language": language, "segments": segments}
                words = sum(len(s["words"]) for s in segments)
                print(f"{model_name} {name}: {len(segments)} segments, {words} words", file=sys.stderr)
            path = OUT / f"words-{model_name}.json"
            path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
