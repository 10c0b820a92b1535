#!/usr/bin/env python3
"""Writes the small seed corpora of the libFuzzer targets into tests/fuzz/corpus/<target>/.

Each seed is a small valid (or nearly valid) input of its format, so that the fuzzer starts deep
inside the parser; scripts/fuzz.sh adds whole generated model files at run time. Standard library
only. Run from anywhere: python3 tests/fuzz/make_seeds.py
"""
import io
import json
import math
import os
import struct
import wave

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
MODELS = os.path.join(HERE, "..", "data", "models", "hf-small-bf16")


def put(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def safetensors(tensors, metadata=None):
    header, offset, blobs = {}, 0, []
    for name, (dtype, shape, blob) in tensors.items():
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def wav(samples, rate, width, channels=1):
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        frames = bytearray()
        for s in samples:
            for _ in range(channels):
                if width == 1:
                    frames += struct.pack("<B", int(128 + 127 * s))
                else:
                    frames += struct.pack("<h", int(32767 * s))
        w.writeframes(bytes(frames))
    return out.getvalue()


def ct2_string(s):
    b = s.encode() + b"\0"
    return struct.pack("<H", len(b)) + b


def ct2_model(variables, aliases):
    out = struct.pack("<I", 6) + ct2_string("WhisperSpec") + struct.pack("<I", 3)
    out += struct.pack("<I", len(variables))
    for name, dtype, shape, blob in variables:
        out += ct2_string(name) + struct.pack("<B", len(shape)) + b"".join(struct.pack("<I", d) for d in shape)
        out += struct.pack("<B", dtype) + struct.pack("<I", len(blob)) + blob
    out += struct.pack("<I", len(aliases))
    for alias, target in aliases:
        out += ct2_string(alias) + ct2_string(target)
    return out


def main():
    floats = lambda n: b"".join(struct.pack("<f", math.sin(i)) for i in range(n))
    # safetensors: two tensors and metadata; one bf16.
    put("fuzz_safetensors", "two_tensors", safetensors(
        {"a.weight": ("F32", [2, 3], floats(6)), "b.bias": ("BF16", [4], b"\x80\x3f" * 4)}, {"format": "pt"}))
    put("fuzz_safetensors", "empty_table", safetensors({}))
    put("fuzz_safetensors", "f16_scalar", safetensors({"s": ("F16", [], b"\x00\x3c")}))

    # JSON: the committed small checkpoint's configs and a few shapes of value.
    for name in ("config.json", "generation_config.json"):
        with open(os.path.join(MODELS, name), "rb") as f:
            put("fuzz_json", name, f.read())
    put("fuzz_json", "values", '{"a":[1,-2.5e-3,true,false,null,"\\u00e9\\ud83d\\ude00"],"b":{}}')

    # Vocabularies: the first byte picks the file name (0 tokenizer.json, 1 vocab.json,
    # 2 vocabulary.json, 3 vocabulary.txt) and the vocabulary size.
    tok = {"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "\u0120c": 2}, "merges": ["a b"]},
           "added_tokens": [{"id": 3, "content": "<|endoftext|>", "special": True}]}
    put("fuzz_vocabulary_directory", "tokenizer_json", bytes([0]) + json.dumps(tok).encode())
    put("fuzz_vocabulary_directory", "vocab_json", bytes([1]) + json.dumps({"a": 0, "b": 1, "<|endoftext|>": 2}).encode())
    put("fuzz_vocabulary_directory", "vocabulary_json", bytes([2]) + json.dumps(["a", "b", "<|endoftext|>"]).encode())
    put("fuzz_vocabulary_directory", "vocabulary_txt", bytes([3]) + b"a\nb\n\xc4\xa0c\n<|endoftext|>\n")

    # Tokenizer: text in several scripts, and raw bytes that are not UTF-8.
    put("fuzz_tokenizer", "english", " And so my fellow Americans, ask not what your country can do for you.")
    put("fuzz_tokenizer", "mixed", " Grüße, 東京 — ¿qué tal? 123 <|en|> 'll 've\n\t")
    put("fuzz_tokenizer", "bytes", bytes(range(256)))

    # Audio: WAV 16-bit mono and stereo, 8-bit, float, a truncated one.
    tone = [0.5 * math.sin(2 * math.pi * 440 * i / 8000) for i in range(400)]
    put("fuzz_audio_file", "pcm16_8k.wav", wav(tone, 8000, 2))
    put("fuzz_audio_file", "pcm16_stereo_44k.wav", wav(tone, 44100, 2, channels=2))
    put("fuzz_audio_file", "pcm8_16k.wav", wav(tone, 16000, 1))
    put("fuzz_audio_file", "truncated.wav", wav(tone, 16000, 2)[:300])

    # VAD: a tone, silence with a NaN, huge values.
    put("fuzz_voice_activity", "tone", b"".join(struct.pack("<f", 0.3 * math.sin(0.2 * i)) for i in range(1024)))
    put("fuzz_voice_activity", "nan_inf", struct.pack("<4f", float("nan"), float("inf"), -float("inf"), 1e-40) * 128)
    put("fuzz_voice_activity", "huge", struct.pack("<f", 3e38) * 512)

    # ggml: the header of a tiny.en file (magic, 11 hyper-parameters) and an empty filterbank.
    hp = [51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1]
    put("fuzz_ggml", "tiny_en_header", struct.pack("<I", 0x67676D6C) + struct.pack("<11i", *hp) + struct.pack("<2i", 80, 201))

    # CTranslate2: a version 6 file with two variables (f32 and int8 with its scale) and an alias.
    put("fuzz_ctranslate2", "two_variables", ct2_model(
        [("encoder/conv1/weight", 0, [2, 2], floats(4)), ("decoder/embeddings/weight", 1, [2, 2], b"\x01\x02\x03\x04"),
         ("decoder/embeddings/weight_scale", 0, [2], floats(2))],
        [("decoder/projection/weight", "decoder/embeddings/weight")]))


if __name__ == "__main__":
    main()
