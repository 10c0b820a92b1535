#!/usr/bin/env python3
# Writes the golden log-mel features that tests/core/tst_log_mel.cpp compares against: the
# transformers WhisperFeatureExtractor (numpy path) on the real speech clips in ../shared/data.
#
# Usage (from the repository root):
#   .venv-reference/bin/python tests/reference/gen_mel_golden.py [--shared ../shared/data]
#
# Output, under tests/data/mel/ (float32 .npy):
#   <clip>_<n_mels>.npy        [n_mels][K]  frames 0..K-1 of the 3000-frame window, where K covers
#                                           every frame that sees audio plus a few padding frames
#   <clip>_<n_mels>_tail.npy   [n_mels][1]  the value every frame K..2999 has (checked constant here)
#   mel_filters_<n_mels>.npy   [n_mels][201] transformers' mel_filter_bank (slaney norm and scale)
#   longform_<case>_sums.npy   [frames]      per-frame sums over the mel bins of a long-form window, and
#   longform_<case>_cols.npy   [n_mels][k]   every 25th frame in full: the windows of faster-whisper's
#                                            transcribe() (one log-mel over the whole recording,
#                                            clamped at its maximum, sliced, 0.0 after the content)
# The rest of a padded 30 s window is pure silence, hence constant; storing it once keeps the
# committed data small while the C++ test still checks all 3000 frames.
import argparse
import pathlib
import wave

import numpy as np
import transformers
from transformers.audio_utils import mel_filter_bank
from transformers.models.whisper import feature_extraction_whisper as fe_module

SAMPLE_RATE = 16000
HOP = 160
FRAMES = 3000
EXTRA_PADDING_FRAMES = 4

# (clip, n_mels) pairs written. 128 bins only for jfk to keep the committed data small.
CASES = [("jfk", 80), ("jfk", 128), ("speech-30s-a", 80), ("speech-30s-b", 80)]


def read_wav(path: pathlib.Path) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getframerate() != SAMPLE_RATE:
            raise SystemExit(f"{path}: expected 16 kHz mono 16-bit PCM")
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return pcm.astype(np.float32) / 32768.0


def numpy_features(audio: np.ndarray, n_mels: int) -> np.ndarray:
    # torch is installed in the reference venv, which makes the extractor take its torch path;
    # the golden data is defined by the numpy path (float64 STFT), so force it.
    fe_module.is_torch_available = lambda: False
    extractor = fe_module.WhisperFeatureExtractor(feature_size=n_mels)
    out = extractor(audio, sampling_rate=SAMPLE_RATE, return_tensors="np")["input_features"][0]
    assert out.shape == (n_mels, FRAMES) and out.dtype == np.float32, out.shape
    return out


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=str(root.parent / "shared" / "data"))
    parser.add_argument("--out", default=str(root / "tests" / "data" / "mel"))
    args = parser.parse_args()
    out_dir = pathlib.Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"transformers {transformers.__version__}, numpy {np.__version__}")

    for clip, n_mels in CASES:
        audio = read_wav(pathlib.Path(args.shared) / f"{clip}.wav")
        features = numpy_features(audio, n_mels)
        # Frame t is centred on sample t*160 and spans +-200 samples: frames up to
        # ceil((len + 200) / 160) see audio; a few more show the clamped silence.
        audio_frames = -(-(min(len(audio), FRAMES * HOP) + 200) // HOP)
        keep = min(FRAMES, audio_frames + EXTRA_PADDING_FRAMES)
        tail = features[:, keep:]
        if keep < FRAMES:
            assert (tail == tail[:, :1]).all(), f"{clip}: padding frames are not constant"
            np.save(out_dir / f"{clip}_{n_mels}_tail.npy", np.ascontiguousarray(tail[:, :1]))
        np.save(out_dir / f"{clip}_{n_mels}.npy", np.ascontiguousarray(features[:, :keep]))
        print(f"{clip} n_mels={n_mels}: {len(audio)} samples, kept {keep} of {FRAMES} frames, "
              f"range [{features.min():.4f}, {features.max():.4f}]")

    for n_mels in (80, 128):
        filters = mel_filter_bank(num_frequency_bins=201, num_mel_filters=n_mels, min_frequency=0.0,
                                  max_frequency=8000.0, sampling_rate=SAMPLE_RATE, norm="slaney",
                                  mel_scale="slaney")  # [201][n_mels], float64
        np.save(out_dir / f"mel_filters_{n_mels}.npy", np.ascontiguousarray(filters.T.astype(np.float32)))

    longform_windows(pathlib.Path(args.shared), out_dir)


# Long-form windows: (case, clips joined, first frame, frame count); count None = to the content's end,
# +1 = faster-whisper's language-detection window (the content plus the one frame after it).
LONGFORM = [("jfk", ["jfk"], 0, None), ("jfk_language", ["jfk"], 0, +1),
            ("abj_0", ["speech-30s-a", "speech-30s-b", "jfk"], 0, 3000),
            ("abj_2650", ["speech-30s-a", "speech-30s-b", "jfk"], 2650, 3000),
            ("abj_end", ["speech-30s-a", "speech-30s-b", "jfk"], 5650, None)]
LONGFORM_STRIDE = 25


def longform_windows(shared: pathlib.Path, out_dir: pathlib.Path) -> None:
    from faster_whisper.feature_extractor import FeatureExtractor
    extractor = FeatureExtractor(feature_size=80)
    for case, clips, seek, count in LONGFORM:
        audio = np.concatenate([read_wav(shared / f"{c}.wav") for c in clips])
        features = extractor(audio)            # [80][len/160 + 1], normalised with the whole maximum
        content = features.shape[-1] - 1       # transcribe()'s content_frames
        if count is None:
            count = min(FRAMES, content - seek)
        elif count == +1:
            count = min(FRAMES, content + 1 - seek)
        window = np.zeros((80, FRAMES), np.float32)
        window[:, :count] = features[:, seek:seek + count]
        np.save(out_dir / f"longform_{case}_sums.npy", window.sum(axis=0, dtype=np.float64))
        np.save(out_dir / f"longform_{case}_cols.npy", np.ascontiguousarray(window[:, ::LONGFORM_STRIDE]))
        print(f"longform {case}: {len(audio)} samples, frames [{seek}, {seek + count}) of {content} content frames")


if __name__ == "__main__":
    main()
