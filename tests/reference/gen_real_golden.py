#!/usr/bin/env python3
"""Golden files for the `real` tests: faster-whisper 1.2.1 (CTranslate2 4.8.5, float32, CPU) on the
real tiny.en and base weights (scripts/fetch_real_models.sh), on real speech (../shared/data) and
on espeak-ng speech (tests/data/real/speech.tsv, rendered by make_speech.sh).

Per model, decoding mode (greedy; beam 5) and clip it records faster-whisper's transcribe()
(temperature 0 with no fallback, condition on previous text, no VAD, timestamps on) window by
window: where the window starts and how many mel frames it holds, the prompt, the sampled tokens,
the no-speech probability and average log-probability, and how close the decision was (greedy: the
top-1 minus top-2 log-probability at every step; beam: the score gap between the best two
hypotheses); then the segments it yields, the detected language and its probability, and the
word error rate against the known sentences. Writes tests/data/real/golden-<model>.json.

Usage: .venv-reference/bin/python tests/reference/gen_real_golden.py [--models DIR] [--only tiny.en]
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

import numpy as np

import ctranslate2
import faster_whisper
import faster_whisper.transcribe as fwt
from faster_whisper import WhisperModel

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SHARED = Path(os.environ.get("HEARSAY_SHARED_DATA_DIR", ROOT.parent / "shared" / "data"))
OUT = ROOT / "tests" / "data" / "real"

MODES = {"greedy": 1, "beam5": 5}
LONG_GAP_SECONDS = 5.0     # speech-30s-a, silence, speech-30s-b
STORY_GAP_SECONDS = 1.0    # between the story paragraphs


def read_wav(path):
    with wave.open(str(path)) as w:
        assert w.getnchannels() == 1 and w.getsampwidth() == 2 and w.getframerate() == 16000, path
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype=np.int16)
    return pcm.astype(np.float32) / 32768.0


def checksum(samples):
    """FNV-1a 64 over the int16 PCM (what the C++ test recomputes from the same WAV)."""
    pcm = np.round(samples * 32768.0).astype(np.int64).astype(np.int16).tobytes()
    h = 0xCBF29CE484222325
    for b in pcm:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return format(h, "016x")


def normalise(text):
    """Lower case, punctuation removed (apostrophes inside words kept), single spaces."""
    text = text.lower().replace("’", "'")
    text = re.sub(r"[^\w\s']", " ", text)
    text = re.sub(r"(?<!\w)'|'(?!\w)", " ", text)
    return " ".join(text.split())


def word_errors(reference, hypothesis):
    r, h = normalise(reference).split(), normalise(hypothesis).split()
    d = list(range(len(h) + 1))
    for i in range(1, len(r) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(h) + 1):
            cur = min(d[j] + 1, d[j - 1] + 1, prev + (r[i - 1] != h[j - 1]))
            prev, d[j] = d[j], cur
    return d[len(h)], len(r)


def load_clips(speech_dir):
    sentences = {}
    for line in (OUT / "speech.tsv").read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        ident, voice, text = line.split("\t")
        sentences[ident] = (voice, text)
    clips = {}
    for name in ("jfk", "speech-30s-a", "speech-30s-b"):
        clips[name] = {"audio": read_wav(SHARED / f"{name}.wav"), "source": f"shared/{name}.wav"}
    for ident, (voice, text) in sentences.items():
        if ident.startswith("story-"):
            continue
        clips[ident] = {"audio": read_wav(speech_dir / f"{ident}.wav"), "source": f"speech/{ident}.wav",
                        "voice": voice, "reference": text}
    a, b = clips["speech-30s-a"]["audio"], clips["speech-30s-b"]["audio"]
    clips["a-gap-b"] = {"audio": np.concatenate([a, np.zeros(int(LONG_GAP_SECONDS * 16000), np.float32), b]),
                        "source": f"speech-30s-a + {LONG_GAP_SECONDS} s silence + speech-30s-b",
                        "gap": [30.0, 30.0 + LONG_GAP_SECONDS]}
    story_ids = sorted((i for i in sentences if i.startswith("story-")), key=lambda s: int(s.split("-")[1]))
    parts, text = [], []
    for k, ident in enumerate(story_ids):
        if k:
            parts.append(np.zeros(int(STORY_GAP_SECONDS * 16000), np.float32))
        parts.append(read_wav(speech_dir / f"{ident}.wav"))
        text.append(sentences[ident][1])
    clips["story"] = {"audio": np.concatenate(parts), "source": " + ".join(story_ids) + f", {STORY_GAP_SECONDS} s apart",
                      "reference": " ".join(text)}
    return clips


class Recorder:
    """Stands in for faster-whisper's ctranslate2.models.Whisper and its feature extractor, records
    what each window was given and what it produced, and measures how close each decision was."""

    def __init__(self, model):
        self.inner = model.model
        self.features = None
        self.pending = None   # (first frame, frame count) of the last window cut from the features
        self.windows = []
        self.language = None
        extractor = model.feature_extractor
        original_call = extractor.__call__
        recorder = self

        class Extractor:
            def __getattr__(self, name):
                return getattr(extractor, name)

            def __call__(self, *args, **kwargs):
                recorder.features = original_call(*args, **kwargs)
                return recorder.features

        model.feature_extractor = Extractor()
        model.model = self

    def note_window(self, array):
        base = self.features
        if base is not None and array.ndim == 2 and array.base is not None:
            offset = array.__array_interface__["data"][0] - base.__array_interface__["data"][0]
            if 0 <= offset < base.shape[1] * base.itemsize:
                self.pending = (offset // base.itemsize, int(array.shape[1]))
                return
        self.pending = None

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def detect_language(self, encoder_output):
        results = self.inner.detect_language(encoder_output)
        if self.language is None:
            self.language = {"window": list(self.pending) if self.pending else None,
                             "probabilities": [[t[2:-2], p] for t, p in results[0]]}
        return results

    def generate(self, encoder_output, prompts, **kwargs):
        result = self.inner.generate(encoder_output, prompts, **kwargs)
        window = {"seek": self.pending[0], "frames": self.pending[1], "prompt": list(prompts[0]),
                  "tokens": list(result[0].sequences_ids[0]), "score": result[0].scores[0],
                  "no_speech_prob": result[0].no_speech_prob}
        probe = dict(kwargs, return_scores=True)
        if kwargs.get("beam_size", 1) == 1:
            probe["return_logits_vocab"] = True
            again = self.inner.generate(encoder_output, prompts, **probe)[0]
            assert list(again.sequences_ids[0]) == window["tokens"], "greedy is not deterministic"
            margins = []
            for step in again.logits[0]:
                logits = np.array(step, dtype=np.float64)
                top = np.sort(logits[np.isfinite(logits)])[-2:]
                margins.append(float(top[1] - top[0]))
            window["margins"] = [round(m, 5) for m in margins]
        else:
            probe["num_hypotheses"] = 2
            again = self.inner.generate(encoder_output, prompts, **probe)[0]
            assert list(again.sequences_ids[0]) == window["tokens"], "beam search is not deterministic"
            window["score_gap"] = round(float(again.scores[0] - again.scores[1]), 6) if len(again.scores) > 1 else None
        self.windows.append(window)
        return result


def run(model_dir, clip, beam_size):
    model = WhisperModel(str(model_dir), device="cpu", compute_type="float32", cpu_threads=2)
    recorder = Recorder(model)
    original = fwt.pad_or_trim

    def pad_or_trim(array, *args, **kwargs):
        recorder.note_window(array)
        return original(array, *args, **kwargs)

    fwt.pad_or_trim = pad_or_trim
    try:
        segments, info = model.transcribe(
            clip["audio"], language=None, task="transcribe", beam_size=beam_size, best_of=5, patience=1,
            length_penalty=1, temperature=0.0, compression_ratio_threshold=2.4, log_prob_threshold=-1.0,
            no_speech_threshold=0.6, condition_on_previous_text=True, initial_prompt=None, suppress_blank=True,
            suppress_tokens=[-1], without_timestamps=False, max_initial_timestamp=1.0, word_timestamps=False,
            vad_filter=False, hallucination_silence_threshold=None, language_detection_segments=1)
        segments = [{"seek": s.seek, "start": round(s.start, 3), "end": round(s.end, 3), "text": s.text,
                     "tokens": list(s.tokens)} for s in segments]
    finally:
        fwt.pad_or_trim = original
    out = {"language": info.language, "language_probability": info.language_probability,
           "windows": recorder.windows, "segments": segments, "text": "".join(s["text"] for s in segments)}
    if recorder.language:
        out["language_detection"] = {"window": recorder.language["window"],
                                     "top": recorder.language["probabilities"][:5]}
    return out


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
            model_dir = args.models / model_name
            english_only = model_name.endswith(".en")
            doc = {"generator": "tests/reference/gen_real_golden.py",
                   "environment": {"faster_whisper": faster_whisper.__version__, "ctranslate2": ctranslate2.__version__,
                                   "numpy": np.__version__, "compute_type": "float32", "cpu_threads": 2},
                   "model": model_name,
                   "options": {"temperature": 0.0, "fallback": False, "condition_on_previous_text": True,
                               "vad_filter": False, "patience": 1, "length_penalty": 1,
                               "no_speech_threshold": 0.6, "log_prob_threshold": -1.0,
                               "compression_ratio_threshold": 2.4},
                   "long_gap_seconds": LONG_GAP_SECONDS, "story_gap_seconds": STORY_GAP_SECONDS,
                   "clips": {}}
            for name, clip in clips.items():
                if english_only and clip.get("voice", "en-us") != "en-us":
                    continue
                entry = {"source": clip["source"], "samples": int(clip["audio"].size),
                         "checksum": checksum(clip["audio"])}
                for key in ("reference", "gap", "voice"):
                    if key in clip:
                        entry[key] = clip[key]
                for mode, beam in MODES.items():
                    result = run(model_dir, clip, beam)
                    if "reference" in clip:
                        errors, words = word_errors(clip["reference"], result["text"])
                        result["word_errors"], result["reference_words"] = errors, words
                    entry[mode] = result
                    print(f"{model_name} {name} {mode}: {result['text'].strip()[:70]}", file=sys.stderr)
                doc["clips"][name] = entry
            path = OUT / f"golden-{model_name}.json"
            path.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
