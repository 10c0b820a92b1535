# The deterministic random-weight scheme shared with the C++ `hearsay-cli make-test-model`:
# float32 weights that are a pure function of (seed, tensor name, element index), bit for bit.
"""Deterministic Whisper weights.

value(seed, name, i) for element i (row-major PyTorch order) of the tensor `name`
(Hugging Face naming):
    key  = FNV-1a 64 of the UTF-8 name
    z    = ((seed * G) ^ key) + (i + 1) * G            (mod 2^64, G = 0x9E3779B97F4A7C15)
    z    = splitmix64 finaliser(z)
    u    = (z >> 40) / 2^24                            (exact double in [0, 1))
    v    = float32(mean + std * 1.7320508075688772 * (2u - 1))   (double, rounded once)
"""

import math
from dataclasses import dataclass

import numpy as np

GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1
SQRT3 = 1.7320508075688772


def fnv1a64(name: str) -> int:
    h = 0xCBF29CE484222325
    for byte in name.encode("utf-8"):
        h ^= byte
        h = (h * 0x100000001B3) & MASK64
    return h


def init_values(seed: int, name: str, count: int, mean: float, std: float) -> np.ndarray:
    """The first `count` values of tensor `name`, as a flat float32 array."""
    base = (((seed * GOLDEN) & MASK64) ^ fnv1a64(name)) & MASK64
    with np.errstate(over="ignore"):
        i1 = np.arange(1, count + 1, dtype=np.uint64)
        z = np.uint64(base) + i1 * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float64) / 16777216.0
    # Same evaluation order as the C++: mean + ((std * sqrt3) * (2u - 1)), all in double.
    values = mean + (std * SQRT3) * (2.0 * u - 1.0)
    return values.astype(np.float32)


def init_value_scalar(seed: int, name: str, index: int, mean: float, std: float) -> float:
    """One element with plain Python integers (an independent check of the vectorised path)."""
    z = ((((seed * GOLDEN) & MASK64) ^ fnv1a64(name)) + (index + 1) * GOLDEN) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    z ^= z >> 31
    u = (z >> 40) / 16777216.0
    return float(np.float32(mean + std * SQRT3 * (2.0 * u - 1.0)))


@dataclass(frozen=True)
class Dims:
    """Whisper dimensions (OpenAI's ModelDimensions names)."""
    n_mels: int
    n_audio_state: int
    n_audio_head: int
    n_audio_layer: int
    n_text_state: int
    n_text_head: int
    n_text_layer: int
    n_vocab: int
    n_audio_ctx: int = 1500
    n_text_ctx: int = 448


@dataclass(frozen=True)
class TensorSpec:
    name: str      # Hugging Face name
    shape: tuple
    mean: float
    std: float


def _linear_std(fan_in: int) -> float:
    return 1.0 / math.sqrt(float(fan_in))


def tensor_specs(d: Dims) -> list:
    """Every tensor of the HF checkpoint (no proj_out: tied to embed_tokens), with its init."""
    specs = []

    def linear(prefix, out_f, in_f, bias=True):
        specs.append(TensorSpec(prefix + ".weight", (out_f, in_f), 0.0, _linear_std(in_f)))
        if bias:
            specs.append(TensorSpec(prefix + ".bias", (out_f,), 0.0, 0.05))

    def layer_norm(prefix, n):
        specs.append(TensorSpec(prefix + ".weight", (n,), 1.0, 0.1))
        specs.append(TensorSpec(prefix + ".bias", (n,), 0.0, 0.05))

    def attention(prefix, n):
        linear(prefix + ".q_proj", n, n)
        linear(prefix + ".k_proj", n, n, bias=False)
        linear(prefix + ".v_proj", n, n)
        linear(prefix + ".out_proj", n, n)

    a, t = d.n_audio_state, d.n_text_state
    specs.append(TensorSpec("model.encoder.conv1.weight", (a, d.n_mels, 3), 0.0, _linear_std(d.n_mels * 3)))
    specs.append(TensorSpec("model.encoder.conv1.bias", (a,), 0.0, 0.05))
    specs.append(TensorSpec("model.encoder.conv2.weight", (a, a, 3), 0.0, _linear_std(a * 3)))
    specs.append(TensorSpec("model.encoder.conv2.bias", (a,), 0.0, 0.05))
    specs.append(TensorSpec("model.encoder.embed_positions.weight", (d.n_audio_ctx, a), 0.0, 0.1))
    for i in range(d.n_audio_layer):
        p = f"model.encoder.layers.{i}"
        attention(p + ".self_attn", a)
        layer_norm(p + ".self_attn_layer_norm", a)
        linear(p + ".fc1", 4 * a, a)
        linear(p + ".fc2", a, 4 * a)
        layer_norm(p + ".final_layer_norm", a)
    layer_norm("model.encoder.layer_norm", a)

    specs.append(TensorSpec("model.decoder.embed_tokens.weight", (d.n_vocab, t), 0.0, _linear_std(t)))
    specs.append(TensorSpec("model.decoder.embed_positions.weight", (d.n_text_ctx, t), 0.0, 0.1))
    for i in range(d.n_text_layer):
        p = f"model.decoder.layers.{i}"
        attention(p + ".self_attn", t)
        layer_norm(p + ".self_attn_layer_norm", t)
        attention(p + ".encoder_attn", t)
        layer_norm(p + ".encoder_attn_layer_norm", t)
        linear(p + ".fc1", 4 * t, t)
        linear(p + ".fc2", t, 4 * t)
        layer_norm(p + ".final_layer_norm", t)
    layer_norm("model.decoder.layer_norm", t)
    return specs


def hf_state_dict(d: Dims, seed: int) -> dict:
    """{HF name: float32 numpy array of its shape}."""
    out = {}
    for s in tensor_specs(d):
        n = int(np.prod(s.shape))
        out[s.name] = init_values(seed, s.name, n, s.mean, s.std).reshape(s.shape)
    return out


def openai_name(hf_name: str) -> str:
    """Map a Hugging Face Whisper tensor name to openai-whisper's name."""
    n = hf_name
    assert n.startswith("model.")
    n = n[len("model."):]
    fixed = {
        "encoder.embed_positions.weight": "encoder.positional_embedding",
        "decoder.embed_positions.weight": "decoder.positional_embedding",
        "decoder.embed_tokens.weight": "decoder.token_embedding.weight",
        "encoder.layer_norm.weight": "encoder.ln_post.weight",
        "encoder.layer_norm.bias": "encoder.ln_post.bias",
        "decoder.layer_norm.weight": "decoder.ln.weight",
        "decoder.layer_norm.bias": "decoder.ln.bias",
    }
    if n in fixed:
        return fixed[n]
    n = n.replace(".layers.", ".blocks.")
    for hf, oa in ((".self_attn_layer_norm.", ".attn_ln."),
                   (".encoder_attn_layer_norm.", ".cross_attn_ln."),
                   (".final_layer_norm.", ".mlp_ln."),
                   (".self_attn.", ".attn."),
                   (".encoder_attn.", ".cross_attn."),
                   (".fc1.", ".mlp.0."),
                   (".fc2.", ".mlp.2."),
                   (".q_proj.", ".query."),
                   (".k_proj.", ".key."),
                   (".v_proj.", ".value."),
                   (".out_proj.", ".out.")):
        n = n.replace(hf, oa)
    return n
