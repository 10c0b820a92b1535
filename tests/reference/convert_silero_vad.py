#!/usr/bin/env python3
# Writes resources/silero_vad_v6.2_16k.safetensors, the Silero VAD weights Hearsay builds in:
# the 16 kHz model of the silero-vad package (6.2.3, MIT), taken from its TorchScript file
# silero_vad/data/silero_vad.jit (the model load_silero_vad() returns; its ONNX file holds the
# same weights), stored under the tensor names of the package's tinygrad_model.py.
#
# Why not the wheel's own silero_vad_16k.safetensors: its weights are a different network state
# from the package's JIT and ONNX models (every layer but the fixed STFT basis differs; speech
# probabilities differ by up to 0.5 on real speech), while the package's get_speech_timestamps,
# VADIterator and published quality figures are those of the JIT/ONNX model. Hearsay's loader
# reads either file (same names and shapes).
#
# Usage (from the repository root, in the reference environment):
#   .venv-reference/bin/python tests/reference/convert_silero_vad.py [--out resources/...]
# Byte-reproducible: a second run writes an identical file.
import argparse
import hashlib
import json
import pathlib
import struct

import numpy as np
import silero_vad
from silero_vad import load_silero_vad

# tinygrad_model.py name -> TorchScript state_dict name (the 16 kHz sub-model, `_model`)
NAMES = {
    "stft_conv.weight": "stft.forward_basis_buffer",
    "conv1.weight": "encoder.0.reparam_conv.weight",
    "conv1.bias": "encoder.0.reparam_conv.bias",
    "conv2.weight": "encoder.1.reparam_conv.weight",
    "conv2.bias": "encoder.1.reparam_conv.bias",
    "conv3.weight": "encoder.2.reparam_conv.weight",
    "conv3.bias": "encoder.2.reparam_conv.bias",
    "conv4.weight": "encoder.3.reparam_conv.weight",
    "conv4.bias": "encoder.3.reparam_conv.bias",
    "lstm_cell.weight_ih": "decoder.rnn.weight_ih",
    "lstm_cell.weight_hh": "decoder.rnn.weight_hh",
    "lstm_cell.bias_ih": "decoder.rnn.bias_ih",
    "lstm_cell.bias_hh": "decoder.rnn.bias_hh",
    "final_conv.weight": "decoder.decoder.2.weight",
    "final_conv.bias": "decoder.decoder.2.bias",
}

SHAPES = {
    "stft_conv.weight": (258, 1, 256), "conv1.weight": (128, 129, 3), "conv1.bias": (128,),
    "conv2.weight": (64, 128, 3), "conv2.bias": (64,), "conv3.weight": (64, 64, 3), "conv3.bias": (64,),
    "conv4.weight": (128, 64, 3), "conv4.bias": (128,), "lstm_cell.weight_ih": (512, 128),
    "lstm_cell.weight_hh": (512, 128), "lstm_cell.bias_ih": (512,), "lstm_cell.bias_hh": (512,),
    "final_conv.weight": (1, 128, 1), "final_conv.bias": (1,),
}


def package_weights() -> dict:
    """The 16 kHz model's tensors from the package's TorchScript file, under tinygrad names."""
    model = load_silero_vad(onnx=False)
    state = {k: v.detach().cpu().numpy() for k, v in model._model.state_dict().items()}
    if set(state) != set(NAMES.values()):
        raise SystemExit(f"unexpected tensors in silero_vad.jit: {sorted(state)}")
    out = {}
    for name, source in NAMES.items():
        array = np.ascontiguousarray(state[source], dtype=np.float32)
        if array.shape != SHAPES[name]:
            raise SystemExit(f"{source}: shape {array.shape}, expected {SHAPES[name]}")
        out[name] = array
    return out


def write_safetensors(path: str, tensors: dict, metadata: dict) -> None:
    """The safetensors format, written by hand so that the header (keys sorted, padded to 8 bytes)
    and with it the whole file are the same on every run (the safetensors library orders the
    metadata by hash)."""
    header = {"__metadata__": metadata}
    offset = 0
    for name in sorted(tensors):
        nbytes = tensors[name].nbytes
        header[name] = {"dtype": "F32", "shape": list(tensors[name].shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, sort_keys=True, separators=(",", ":")).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name in sorted(tensors):
            f.write(tensors[name].astype("<f4").tobytes())


def main() -> None:
    root = pathlib.Path(__file__).resolve().parents[2]
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=str(root / "resources" / "silero_vad_v6.2_16k.safetensors"))
    args = parser.parse_args()
    tensors = package_weights()
    metadata = {
        "source": f"silero-vad {silero_vad.__version__} (PyPI), silero_vad/data/silero_vad.jit, 16 kHz model",
        "layout": "tensor names and shapes of silero_vad/tinygrad_model.py",
        "converter": "tests/reference/convert_silero_vad.py (Hearsay)",
        "license": "MIT, Copyright (c) 2020-present Silero Team",
    }
    write_safetensors(args.out, tensors, metadata)
    digest = hashlib.sha256(pathlib.Path(args.out).read_bytes()).hexdigest()
    print(f"wrote {args.out} ({pathlib.Path(args.out).stat().st_size} bytes, sha256 {digest})")


if __name__ == "__main__":
    main()
