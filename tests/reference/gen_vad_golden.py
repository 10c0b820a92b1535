#!/usr/bin/env python3
# Writes the golden files of tests/core/tst_voice_activity.cpp: the silero-vad package's own
# model (its ONNX path, 6.2.3) on every 512-sample chunk of the real speech clips, and the speech
# timestamps its get_speech_timestamps gives for several parameter sets.
#
# Usage (from the repository root):
#   .venv-reference/bin/python tests/reference/gen_vad_golden.py [--shared ../shared/data]
#
# Output, under tests/data/vad/:
#   probs-<clip>.npy   [n_chunks] float32: speech probability of chunk i = samples [512 i, 512 i + 512)
#                      (the last chunk zero-padded), exactly the list get_speech_timestamps builds
#   manifest.json      clips, parameter sets, segments per (parameter set, clip), agreement figures
#   synthetic-probs.npy [cases, 128] float16: made-up probability sequences (multiples of 1/64, so
#                      exact in float16 and float32 and often equal to a threshold), -1 past the end
#   synthetic.json     per case: options, length, total samples, get_speech_timestamps_from_probs's
#                      segments; boundary values (chunk-multiple durations, ties) on purpose
import argparse
import hashlib
import json
import pathlib
import wave

import numpy as np
import onnxruntime
import silero_vad
import torch
from silero_vad import get_speech_timestamps, get_speech_timestamps_from_probs, load_silero_vad

SAMPLE_RATE = 16000
CHUNK = 512
CLIPS = ["jfk", "speech-30s-a", "speech-30s-b"]

# Keyword arguments of get_speech_timestamps, by name. "hearsay" is what Hearsay's streaming
# session uses (core/audio/vad_options.h); the others exercise the package's other paths.
PARAMETER_SETS = {
    "hearsay": dict(threshold=0.5, min_silence_duration_ms=500, speech_pad_ms=100, min_speech_duration_ms=250),
    "package_defaults": dict(),
    # Segments longer than 3 s are cut at the longest pause inside them (the default rule).
    "max_speech_3s": dict(threshold=0.5, min_silence_duration_ms=500, speech_pad_ms=100,
                          min_speech_duration_ms=250, max_speech_duration_s=3.0),
    # The same with the legacy rule: cut at the last pause longer than 98 ms.
    "max_speech_3s_legacy": dict(threshold=0.5, min_silence_duration_ms=500, speech_pad_ms=100,
                                 min_speech_duration_ms=250, max_speech_duration_s=3.0,
                                 use_max_poss_sil_at_max_speech=False),
    # Padding wider than half the shortest pause: neighbouring segments split the gap between them.
    "loose": dict(threshold=0.3, neg_threshold=0.2, min_silence_duration_ms=200, speech_pad_ms=150,
                  min_speech_duration_ms=100),
}


def read_wav(path: pathlib.Path) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getframerate() != SAMPLE_RATE:
            raise SystemExit(f"{path}: expected 16 kHz mono 16-bit PCM")
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return pcm.astype(np.float32) / 32768.0


def chunk_probabilities(model, audio: torch.Tensor) -> list:
    # The loop of get_speech_timestamps: fresh state, 512-sample chunks, the last one padded with
    # zeros; the model wrapper carries the LSTM state and the 64-sample context between calls.
    model.reset_states()
    probs = []
    for start in range(0, len(audio), CHUNK):
        chunk = audio[start:start + CHUNK]
        if len(chunk) < CHUNK:
            chunk = torch.nn.functional.pad(chunk, (0, CHUNK - len(chunk)))
        probs.append(model(chunk, SAMPLE_RATE).item())
    return probs


def synthetic_cases(count: int, max_chunks: int, seed: int = 7):
    """Probability sequences and options that hit the segmentation rules' boundaries: durations
    that are whole chunks (32 ms = 512 samples), probabilities equal to a threshold, pauses of
    equal length, cuts of over-long segments by both rules, streams ending inside a chunk."""
    rng = np.random.default_rng(seed)
    probs = np.full((count, max_chunks), -1.0, dtype=np.float16)
    cases = []
    for i in range(count):
        threshold = float(rng.choice([0.25, 0.375, 0.5, 0.625]))
        opts = {
            "threshold": threshold,
            "min_silence_duration_ms": int(rng.choice([0, 32, 64, 96, 100, 128, 256, 500])),
            "speech_pad_ms": int(rng.choice([0, 16, 30, 32, 64, 100, 256])),
            "min_speech_duration_ms": int(rng.choice([0, 32, 64, 128, 250, 256])),
            "min_silence_at_max_speech": int(rng.choice([0, 32, 98, 128])),
            "use_max_poss_sil_at_max_speech": bool(rng.integers(0, 2)),
        }
        if rng.integers(0, 2):
            opts["neg_threshold"] = threshold - float(rng.choice([0.0, 0.125, 0.25]))
        if rng.integers(0, 3) == 0:
            # A limit that is a whole number of chunks past the chunk and the padding.
            pad = SAMPLE_RATE * opts["speech_pad_ms"] / 1000
            opts["max_speech_duration_s"] = (int(rng.integers(2, 24)) * CHUNK + CHUNK + 2 * pad) / SAMPLE_RATE
        n = int(rng.integers(1, max_chunks + 1))
        stay = rng.uniform(0.6, 0.95)
        speech = bool(rng.integers(0, 2))
        seq = []
        for _ in range(n):
            if rng.uniform() > stay:
                speech = not speech
            k = int(rng.integers(int(threshold * 64) - 8, 65)) if speech else int(rng.integers(0, int(threshold * 64) + 3))
            seq.append(min(max(k, 0), 64) / 64)
        probs[i, :n] = np.array(seq, dtype=np.float16)
        total = (n - 1) * CHUNK + int(rng.integers(1, CHUNK + 1))
        segments = get_speech_timestamps_from_probs([float(p) for p in probs[i, :n]], sampling_rate=SAMPLE_RATE,
                                                    audio_length_samples=total, **opts)
        cases.append({"options": opts, "chunks": n, "samples": total,
                      "segments": [[int(s["start"]), int(s["end"])] for s in segments]})
    return probs, cases


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=str(root.parent / "shared" / "data"))
    parser.add_argument("--out", default=str(root / "tests" / "data" / "vad"))
    args = parser.parse_args()
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(1)

    onnx_model = load_silero_vad(onnx=True)   # silero_vad/data/silero_vad.onnx, one CPU thread
    jit_model = load_silero_vad(onnx=False)   # silero_vad/data/silero_vad.jit, for the agreement figure

    # The weights Hearsay builds in must be this package's model (convert_silero_vad.py wrote them).
    from safetensors.numpy import load_file
    from convert_silero_vad import package_weights
    weights_path = root / "resources" / "silero_vad_v6.2_16k.safetensors"
    built_in = load_file(str(weights_path))
    expected = package_weights()
    assert set(built_in) == set(expected) and all(np.array_equal(built_in[k], expected[k]) for k in expected), \
        f"{weights_path} is not silero-vad {silero_vad.__version__}'s model: rerun convert_silero_vad.py"

    manifest = {
        "description": "silero-vad package (ONNX path) on the shared speech clips; see tests/reference/README.md",
        "sample_rate": SAMPLE_RATE,
        "chunk_samples": CHUNK,
        "context_samples": 64,
        "weights": {
            "file": "resources/silero_vad_v6.2_16k.safetensors",
            "sha256": hashlib.sha256(weights_path.read_bytes()).hexdigest(),
            "equals_package_jit_tensors": True,
        },
        "clips": [],
        "parameter_sets": {},
        "segments": {},
        "environment": {
            "silero_vad": silero_vad.__version__,
            "onnxruntime": onnxruntime.__version__,
            "torch": torch.__version__,
            "numpy": np.__version__,
            "model": "silero_vad.onnx (opset 16) through silero_vad.utils_vad.OnnxWrapper",
        },
    }
    # Thresholds any parameter set compares probabilities with: a probability this close to one
    # could fall on the other side under a tiny numerical difference.
    thresholds = set()
    for name, params in PARAMETER_SETS.items():
        t = params.get("threshold", 0.5)
        neg = params.get("neg_threshold", max(t - 0.15, 0.01))
        thresholds.update([t, neg])
        manifest["parameter_sets"][name] = params
        manifest["segments"][name] = {}

    jit_max_diff = 0.0
    for clip in CLIPS:
        audio_np = read_wav(pathlib.Path(args.shared) / f"{clip}.wav")
        audio = torch.from_numpy(audio_np)
        probs = chunk_probabilities(onnx_model, audio)
        jit_probs = chunk_probabilities(jit_model, audio)
        clip_jit_diff = float(np.max(np.abs(np.array(probs) - np.array(jit_probs))))
        jit_max_diff = max(jit_max_diff, clip_jit_diff)
        np.save(out_dir / f"probs-{clip}.npy", np.array(probs, dtype="<f4"))
        p = np.array(probs, dtype=np.float64)
        manifest["clips"].append({
            "name": clip,
            "samples": int(len(audio_np)),
            "chunks": len(probs),
            "probs_file": f"probs-{clip}.npy",
            "onnx_vs_jit_max_abs_diff": clip_jit_diff,
            "min_distance_to_a_threshold": float(min(np.min(np.abs(p - t)) for t in thresholds)),
        })
        for name, params in PARAMETER_SETS.items():
            segments = get_speech_timestamps(audio, onnx_model, sampling_rate=SAMPLE_RATE, **params)
            again = get_speech_timestamps_from_probs(probs, sampling_rate=SAMPLE_RATE,
                                                     audio_length_samples=len(audio_np), **params)
            assert segments == again, (clip, name, segments, again)
            manifest["segments"][name][clip] = [[int(s["start"]), int(s["end"])] for s in segments]
        print(f"{clip}: {len(audio_np)} samples, {len(probs)} chunks, ONNX vs JIT {clip_jit_diff:.2e}, "
              f"hearsay segments {manifest['segments']['hearsay'][clip]}")

    synthetic_probs, cases = synthetic_cases(count=300, max_chunks=128)
    np.save(out_dir / "synthetic-probs.npy", synthetic_probs)
    (out_dir / "synthetic.json").write_text(json.dumps({"cases": cases}, separators=(",", ":")) + "\n")
    print(f"{len(cases)} synthetic cases, {sum(len(c['segments']) for c in cases)} segments")

    manifest["onnx_vs_jit_max_abs_diff"] = jit_max_diff
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    print(f"wrote {out_dir}")


if __name__ == "__main__":
    main()
