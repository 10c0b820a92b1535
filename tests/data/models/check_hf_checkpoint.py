#!/usr/bin/env python3
# Cross-checks a make-test-model Hugging Face checkpoint against the reference stack (run by hand,
# not by CI): transformers loads it with no missing/unexpected keys, every tensor equals a NumPy
# implementation of the deterministic scheme bit for bit, the slow WhisperTokenizer (vocab.json +
# merges.txt) encodes like tiktoken on the true Whisper vocabulary (openai-whisper assets), and
# generate() runs. Usage: check_hf_checkpoint.py DIR SEED multi|en
import sys, json, base64, numpy as np, torch, time
from transformers import WhisperForConditionalGeneration, WhisperTokenizer
import tiktoken
d = sys.argv[1]; seed = int(sys.argv[2]); multilingual = sys.argv[3] == "multi"
t0 = time.time()
model, info = WhisperForConditionalGeneration.from_pretrained(d, output_loading_info=True)
print("load", time.time() - t0, "missing", info["missing_keys"], "unexpected", info["unexpected_keys"], "mismatched", info["mismatched_keys"])
M = (1 << 64) - 1
def fnv(s):
    h = 0xcbf29ce484222325
    for c in s.encode(): h ^= c; h = (h * 0x100000001b3) & M
    return h
def values(name, n, mean, std):
    base = np.uint64(((seed * 0x9E3779B97F4A7C15) & M) ^ fnv(name))
    i = np.arange(1, n + 1, dtype=np.uint64)
    with np.errstate(over='ignore'):
        z = base + i * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float64) / 16777216.0
    return (mean + std * 1.7320508075688772 * (2.0 * u - 1.0)).astype(np.float32)
sd = model.state_dict(); bad = 0; count = 0
for name, t in sd.items():
    if name == "proj_out.weight":
        assert torch.equal(t, sd["model.decoder.embed_tokens.weight"]); continue
    shape = tuple(t.shape); n = t.numel()
    if name.endswith("layer_norm.weight"): mean, std = 1.0, 0.1
    elif name.endswith(".bias") or name.endswith("layer_norm.bias"): mean, std = 0.0, 0.05
    elif "embed_positions" in name: mean, std = 0.0, 0.1
    elif "conv" in name: mean, std = 0.0, 1.0 / np.sqrt(shape[1] * 3)
    elif "embed_tokens" in name: mean, std = 0.0, 1.0 / np.sqrt(shape[1])
    else: mean, std = 0.0, 1.0 / np.sqrt(shape[1])
    ref = values(name, n, mean, std).reshape(shape)
    count += 1
    if not np.array_equal(ref, t.float().numpy()): bad += 1; print("MISMATCH", name)
print("tensors compared", count, "mismatched", bad)
tok = WhisperTokenizer.from_pretrained(d)
import whisper, os
assets = os.path.join(os.path.dirname(whisper.__file__), "assets") + "/"
ranks = {base64.b64decode(l.split()[0]): int(l.split()[1]) for l in open(assets + ("multilingual.tiktoken" if multilingual else "gpt2.tiktoken")) if l.strip()}
pat = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
enc = tiktoken.Encoding("w", pat_str=pat, mergeable_ranks=ranks, special_tokens={})
texts = [" And so my fellow Americans, ask not what your country can do for you", "Grüß Gott! 東京都は日本の首都です。 Ça va? 😀 naïve — 1234.5", " Привет, как дела? 안녕하세요 مرحبا"]
for s in texts:
    a = tok.encode(s, add_special_tokens=False); b = enc.encode(s)
    print("tokenizer==tiktoken", a == b, len(a))
print("special", tok.convert_tokens_to_ids(["<|startoftranscript|>", "<|en|>", "<|transcribe|>", "<|notimestamps|>", "<|0.00|>"]))
gen = model.generation_config
print("gen", gen.no_timestamps_token_id, gen.decoder_start_token_id, gen.is_multilingual, len(getattr(gen, "lang_to_id", None) or {}))
feat = torch.randn(1, model.config.num_mel_bins, 3000)
out = model.generate(feat, max_new_tokens=5)
print("generate ok", out.tolist())
