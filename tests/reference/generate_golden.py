# One command that regenerates every golden file the C++ tests compare against: random-weight
# Whisper models run through transformers and through OpenAI's openai-whisper, on real speech.
"""Usage: .venv-reference/bin/python tests/reference/generate_golden.py [--only MODEL] [--skip-checkpoints]

Writes tests/data/golden/ (see tests/reference/README.md for the schema) and the two Hugging Face
checkpoints tests/data/models/hf-small-fp16-sharded/ and tests/data/models/hf-small-bf16/.
Deterministic: the same packages give byte-identical files.
"""

import argparse
import json
import os
import shutil
import sys
import wave
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from deterministic_weights import Dims, fnv1a64, hf_state_dict, init_value_scalar, init_values, tensor_specs  # noqa: E402
from reference_models import (build_hf_model, build_openai_model, hf_generation_config,  # noqa: E402
                              load_openai_whisper, openai_suppress_tokens, openai_tokenizer,
                              special_tokens)

ROOT = HERE.parent.parent
GOLDEN = ROOT / "tests" / "data" / "golden"
MODELS_OUT = ROOT / "tests" / "data" / "models"
SHARED = Path(os.environ.get("HEARSAY_SHARED_DATA_DIR", ROOT.parent / "shared" / "data"))

CLIPS = ["jfk", "speech-30s-a", "speech-30s-b"]
ENCODER_ROWS = [0, 1, 2, 100, 750, 1499]
MEL_FRAMES = [0, 1, 100, 550, 1099, 1500, 2999]
TOP_K = 20
SAMPLE_LEN = 48
BEAM = 5
PREFIX_TEXT = " And so my fellow Americans"   # its first 4 tokens follow the start sequence
FULL_LOGITS_CLIP = "jfk"

MODELS = [
    # name, dims, seed, full last-position logit row stored
    ("small", Dims(80, 64, 2, 2, 64, 2, 2, 51865), 1, True),
    ("tiny", Dims(80, 384, 6, 4, 384, 6, 4, 51865), 2, True),
    ("small-en", Dims(80, 64, 2, 2, 64, 2, 2, 51864), 3, False),
    ("small-v3", Dims(128, 64, 2, 2, 64, 2, 2, 51866), 4, False),
]
CHECKPOINT_DIMS = Dims(80, 16, 2, 1, 16, 2, 1, 51865)
CHECKPOINT_SEED = 5


# ---------------------------------------------------------------------------------------------
# small helpers

def load_wav(path: Path) -> np.ndarray:
    """16-bit PCM mono 16 kHz WAV -> float32 in [-1, 1) (sample / 32768)."""
    with wave.open(str(path)) as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getframerate() != 16000:
            raise SystemExit(f"{path}: expected 16 kHz mono 16-bit PCM")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0


def save_npy(path: Path, array: np.ndarray, dtype) -> str:
    a = np.ascontiguousarray(np.asarray(array).astype(dtype))
    np.save(path, a, allow_pickle=False)
    return path.name


def log_softmax(x: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(x.float(), dim=-1)


def dims_json(d: Dims) -> dict:
    return dict(d.__dict__)


# ---------------------------------------------------------------------------------------------
# transformers side: the plain greedy loop, with the same logit rules as the reference

@torch.no_grad()
def hf_greedy(model, encoder_out, prompt, suppress, begin_suppress, eot, timestamp_proc=None):
    """Argmax decoding over full-sequence forward passes of transformers' model (no cache).
    Suppression as openai-whisper applies it: `suppress` always, `begin_suppress` at the first
    sampled position; `timestamp_proc` (transformers' WhisperTimeStampLogitsProcessor) if given.
    Returns tokens (without prompt and EOT), sum/avg log-prob (of the filtered distribution,
    EOT included), and the per-step top-1 minus top-2 filtered logit margin."""
    tokens = list(prompt)
    sum_lp = 0.0
    margins = []
    for step in range(SAMPLE_LEN):
        ids = torch.tensor([tokens])
        logits = model(encoder_outputs=(encoder_out,), decoder_input_ids=ids).logits[:, -1].clone()
        logits[:, suppress] = -np.inf
        if step == 0:
            logits[:, begin_suppress] = -np.inf
        if timestamp_proc is not None:
            logits = timestamp_proc(ids, logits)
        top2 = torch.topk(logits[0], 2)
        margins.append(float(top2.values[0] - top2.values[1]))
        nxt = int(top2.indices[0])
        sum_lp += float(log_softmax(logits)[0, nxt])
        tokens.append(nxt)
        if nxt == eot:
            break
    sampled = tokens[len(prompt):]
    if sampled and sampled[-1] == eot:
        sampled = sampled[:-1]
    return {"tokens": sampled, "sum_logprob": sum_lp, "avg_logprob": sum_lp / (len(sampled) + 1),
            "step_margins": margins, "min_margin": min(margins)}


@torch.no_grad()
def hf_generate(model, features, language, task, num_beams, timestamps, prompt_len):
    kwargs = {"language": language, "task": task} if language else {}
    out = model.generate(input_features=features, max_new_tokens=SAMPLE_LEN, num_beams=num_beams,
                         do_sample=False, return_timestamps=timestamps, return_dict_in_generate=True,
                         output_scores=num_beams > 1, force_unique_generate_call=True, **kwargs)
    seq = out.sequences[0].tolist()
    eot = model.generation_config.eos_token_id
    # transformers returns the forced start tokens first (prompt_len of them), then the sample.
    sampled = seq[prompt_len:]
    if eot in sampled:
        sampled = sampled[:sampled.index(eot)]
    rec = {"tokens": sampled, "returned_sequence": seq}
    if getattr(out, "sequences_scores", None) is not None:
        rec["sequences_score"] = float(out.sequences_scores[0])
    return rec


# ---------------------------------------------------------------------------------------------
# openai-whisper side: decode() with hooks that record the scores it does not return

@torch.no_grad()
def openai_decode(model, mel, options):
    whisper = load_openai_whisper()
    task = whisper.decoding.DecodingTask(model, options)
    margins = []
    captured = {}

    original_update = task.decoder.update

    def update(tokens, logits, sum_logprobs):
        top2 = torch.topk(logits, 2, dim=-1).values
        margins.append([float(v) for v in (top2[:, 0] - top2[:, 1])])
        return original_update(tokens, logits, sum_logprobs)

    original_rank = task.sequence_ranker.rank

    def rank(tokens, sum_logprobs):
        selected = original_rank(tokens, sum_logprobs)
        captured["candidates"] = [t.tolist() for t in tokens[0]]
        captured["candidate_sum_logprobs"] = list(sum_logprobs[0])
        captured["selected"] = selected[0]
        return selected

    task.decoder.update = update
    task.sequence_ranker.rank = rank
    result = task.run(mel.unsqueeze(0))[0]
    sel = captured["selected"]
    rec = {
        "tokens": list(result.tokens),
        "sum_logprob": float(captured["candidate_sum_logprobs"][sel]),
        "avg_logprob": float(result.avg_logprob),
        "no_speech_prob": float(result.no_speech_prob),
        "language": result.language,
    }
    if options.beam_size is None:
        rec["step_margins"] = [m[0] for m in margins]
        rec["min_margin"] = min(rec["step_margins"])
    else:
        rec["candidates"] = [{"tokens": t, "sum_logprob": float(lp)} for t, lp in
                             zip(captured["candidates"], captured["candidate_sum_logprobs"])]
    return rec


def options_json(o) -> dict:
    keys = ["task", "language", "temperature", "sample_len", "beam_size", "patience", "length_penalty",
            "suppress_tokens", "suppress_blank", "without_timestamps", "max_initial_timestamp", "fp16"]
    return {k: getattr(o, k) for k in keys}


# ---------------------------------------------------------------------------------------------
# per model

def decode_runs(dims: Dims):
    """The decoding configurations: (id, DecodingOptions kwargs)."""
    multilingual = dims.n_vocab >= 51865
    lang = "en"   # for English-only models the tokenizer has no language token; "en" is what
    #               openai-whisper's transcribe() passes there, and it avoids language detection
    runs = [
        ("greedy", dict(without_timestamps=True)),
        ("greedy_timestamps", dict(without_timestamps=False)),
        ("beam5", dict(without_timestamps=True, beam_size=BEAM, patience=1.0)),
        ("beam5_timestamps", dict(without_timestamps=False, beam_size=BEAM, patience=1.0)),
    ]
    if multilingual:
        runs.append(("greedy_translate", dict(without_timestamps=True, task="translate")))
    out = []
    for rid, kw in runs:
        base = dict(task="transcribe", language=lang, temperature=0.0, sample_len=SAMPLE_LEN, fp16=False)
        base.update(kw)
        out.append((rid, base))
    return out


def agree(a, b) -> float:
    return float((a - b).abs().max())


def generate_model(name, dims: Dims, seed: int, full_row: bool, features: dict, log):
    whisper = load_openai_whisper()
    from transformers.generation.logits_process import WhisperTimeStampLogitsProcessor

    out_dir = GOLDEN / name
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)

    weights = hf_state_dict(dims, seed)
    hf = build_hf_model(dims, seed, weights)
    oa = build_openai_model(dims, seed, weights)
    del weights

    sp = special_tokens(dims)
    multilingual = dims.n_vocab >= 51865
    tok = openai_tokenizer(dims, language="en" if multilingual else None, task="transcribe")
    sot_seq_nots = list(tok.sot_sequence_including_notimestamps)
    prefix_tokens = tok.encode(PREFIX_TEXT)[:4]
    logits_prefix = sot_seq_nots + prefix_tokens
    suppress = openai_suppress_tokens(dims)
    begin_suppress = tok.encode(" ") + [tok.eot]

    enc_rows, enc_sum, enc_sumsq = [], [], []
    top_ids, top_vals, lang_probs = [], [], []
    clip_records = []
    agreement = {"encoder_max_abs_diff": 0.0, "logits_max_abs_diff": 0.0, "language_probs_max_abs_diff": 0.0}
    last_row = None

    for clip in CLIPS:
        mel_np = features[dims.n_mels][clip]
        x = torch.from_numpy(mel_np)[None]          # [1, n_mels, 3000]
        rec = {"clip": clip}
        with torch.no_grad():
            e_hf = hf.model.encoder(x).last_hidden_state       # [1, 1500, d]
            e_oa = oa.encoder(x)
            agreement["encoder_max_abs_diff"] = max(agreement["encoder_max_abs_diff"], agree(e_hf, e_oa))
            e = e_hf[0].double()
            enc_rows.append(e_hf[0, ENCODER_ROWS].numpy())
            enc_sum.append(e.sum(dim=1).numpy())
            enc_sumsq.append((e * e).sum(dim=1).numpy())

            ids = torch.tensor([logits_prefix])
            l_hf = hf(encoder_outputs=(e_hf,), decoder_input_ids=ids).logits[0]   # [P, V]
            l_oa = oa.logits(ids, e_oa)[0]
            agreement["logits_max_abs_diff"] = max(agreement["logits_max_abs_diff"], agree(l_hf, l_oa))
            tv = torch.topk(l_hf, TOP_K, dim=-1)
            top_ids.append(tv.indices.numpy())
            top_vals.append(tv.values.numpy())
            if full_row and clip == FULL_LOGITS_CLIP:
                last_row = l_hf[-1].numpy()

            # no-speech probability: softmax over the whole vocabulary at the SOT position
            rec["no_speech_prob"] = float(torch.softmax(l_hf[0], -1)[sp["no_speech"]])

            if multilingual:
                l0 = hf(encoder_outputs=(e_hf,), decoder_input_ids=torch.tensor([[sp["sot"]]])).logits[0, 0]
                lp = torch.softmax(l0[sp["language_tokens"]].double(), -1).numpy()
                lang_probs.append(lp)
                _, probs_oa = whisper.decoding.detect_language(oa, x[0])
                lp_oa = np.array([probs_oa[c] for c in sp["language_codes"]])
                agreement["language_probs_max_abs_diff"] = max(agreement["language_probs_max_abs_diff"],
                                                               float(np.abs(lp - lp_oa).max()))
                order = np.argsort(-lp, kind="stable")
                rec["language_detection"] = {
                    "transformers": {"language": sp["language_codes"][order[0]],
                                     "token": sp["language_tokens"][order[0]],
                                     "top5": [[sp["language_codes"][i], float(lp[i])] for i in order[:5]]},
                    "openai_whisper": {"language": max(probs_oa, key=probs_oa.get),
                                       "top5": sorted(((c, float(p)) for c, p in probs_oa.items()),
                                                      key=lambda cp: -cp[1])[:5]},
                    "hf_detect_language_token": int(hf.detect_language(input_features=x)[0]),
                }

            # decoding: openai-whisper (the behaviour the C++ decoder implements) ...
            decodes = {}
            for rid, kw in decode_runs(dims):
                opts = whisper.decoding.DecodingOptions(**kw)
                r = openai_decode(oa, x[0], opts)
                r["options"] = options_json(opts)
                r["prompt"] = list(whisper.decoding.DecodingTask(oa, opts).initial_tokens)
                decodes[rid] = {"openai_whisper": r}

            # ... and transformers
            t_lang = "en" if multilingual else None
            g = hf_greedy(hf, e_hf, sot_seq_nots, suppress, begin_suppress, tok.eot)
            g["method"] = "argmax loop over WhisperForConditionalGeneration logits (full recompute)"
            g_gen = hf_generate(hf, x, t_lang, "transcribe", 1, False, len(sot_seq_nots))
            g_gen["method"] = "generate(num_beams=1)"
            decodes["greedy"]["transformers"] = g
            decodes["greedy"]["transformers_generate"] = g_gen

            sot_seq = list(tok.sot_sequence)
            ts_proc = WhisperTimeStampLogitsProcessor(hf.generation_config, begin_index=len(sot_seq))
            gt = hf_greedy(hf, e_hf, sot_seq, suppress, begin_suppress, tok.eot, timestamp_proc=ts_proc)
            gt["method"] = "argmax loop with transformers' WhisperTimeStampLogitsProcessor"
            decodes["greedy_timestamps"]["transformers"] = gt

            b = hf_generate(hf, x, t_lang, "transcribe", BEAM, False, len(sot_seq_nots))
            b["method"] = "generate(num_beams=5)"
            decodes["beam5"]["transformers"] = b
            bt = hf_generate(hf, x, t_lang, "transcribe", BEAM, True, len(sot_seq))
            bt["method"] = "generate(num_beams=5, return_timestamps=True)"
            decodes["beam5_timestamps"]["transformers"] = bt
            if multilingual:
                tr_tok = openai_tokenizer(dims, language="en", task="translate")
                tg = hf_greedy(hf, e_hf, list(tr_tok.sot_sequence_including_notimestamps), suppress,
                               begin_suppress, tok.eot)
                tg["method"] = "argmax loop, translate prompt"
                decodes["greedy_translate"]["transformers"] = tg

            for rid, d in decodes.items():
                oa_t = d["openai_whisper"]["tokens"]
                d["agree"] = {k: v["tokens"] == oa_t for k, v in d.items() if k != "openai_whisper"}
                n = 0
                for k, v in d.items():
                    if k not in ("openai_whisper", "agree"):
                        n = len(os.path.commonprefix([oa_t, v["tokens"]]))
                        d["agree"][k + "_common_prefix"] = n
            rec["decoding"] = decodes

            # sensitivity: the same model on the mel rounded to fp16 (a perturbation larger than
            # any sane float32 frontend error); tells the C++ tests how robust the goldens are
            xp = torch.from_numpy(mel_np.astype(np.float16).astype(np.float32))[None]
            e_p = hf.model.encoder(xp).last_hidden_state
            gp = hf_greedy(hf, e_p, sot_seq_nots, suppress, begin_suppress, tok.eot)
            rec["sensitivity_fp16_mel"] = {
                "mel_max_abs_change": float(np.abs(xp[0].numpy() - mel_np).max()),
                "encoder_max_abs_diff": agree(e_p, e_hf),
                "greedy_tokens_equal": gp["tokens"] == g["tokens"],
                "greedy_common_prefix": len(os.path.commonprefix([gp["tokens"], g["tokens"]])),
            }
        clip_records.append(rec)
        log(f"  {name}/{clip}: greedy agree {decodes['greedy']['agree']}, beam agree {decodes['beam5']['agree']}")

    files = {
        "encoder_rows": save_npy(out_dir / "encoder_rows.npy", np.stack(enc_rows), "<f4"),
        "encoder_row_sum": save_npy(out_dir / "encoder_row_sum.npy", np.stack(enc_sum), "<f4"),
        "encoder_row_sumsq": save_npy(out_dir / "encoder_row_sumsq.npy", np.stack(enc_sumsq), "<f4"),
        "logits_top_ids": save_npy(out_dir / "logits_top_ids.npy", np.stack(top_ids), "<i4"),
        "logits_top_values": save_npy(out_dir / "logits_top_values.npy", np.stack(top_vals), "<f4"),
    }
    if last_row is not None:
        files["logits_last_row"] = save_npy(out_dir / "logits_last_row.npy", last_row, "<f4")
    if multilingual:
        files["language_probs"] = save_npy(out_dir / "language_probs.npy", np.stack(lang_probs), "<f4")

    manifest = {
        "schema": "hearsay-golden-1",
        "model": name,
        "dims": dims_json(dims),
        "seed": seed,
        "dtype": "float32",
        "weights": "deterministic scheme, see tests/reference/README.md; HF names; proj_out tied",
        "n_tensors": len(tensor_specs(dims)),
        "multilingual": multilingual,
        "special_tokens": sp,
        "suppress_tokens": suppress,
        "begin_suppress_tokens": begin_suppress,
        "clips": CLIPS,
        "features": f"features-{dims.n_mels}",
        "encoder_rows": ENCODER_ROWS,
        "logits_prefix": logits_prefix,
        "logits_top_k": TOP_K,
        "logits_last_row_clip": FULL_LOGITS_CLIP if last_row is not None else None,
        "sample_len": SAMPLE_LEN,
        "files": files,
        "agreement_transformers_vs_openai": agreement,
        "per_clip": clip_records,
        "environment": environment(),
    }
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


# ---------------------------------------------------------------------------------------------
# shared pieces: features, init vectors, checkpoints

def environment() -> dict:
    import transformers
    whisper = load_openai_whisper()
    from importlib.metadata import version
    return {"torch": torch.__version__, "transformers": transformers.__version__,
            "openai_whisper": version("openai-whisper"), "numpy": np.__version__,
            "torch_threads": torch.get_num_threads(), "attn_implementation": "eager",
            "openai_whisper_sdpa": bool(whisper.model.MultiHeadAttention.use_sdpa)}


def compute_features(log) -> dict:
    """{n_mels: {clip: [n_mels, 3000] float32}} from transformers' WhisperFeatureExtractor, and
    summaries of them under golden/features-N/ (for triage of the C++ frontend's input)."""
    from transformers import WhisperFeatureExtractor
    out = {}
    for n_mels in sorted({d.n_mels for _, d, _, _ in MODELS}):
        fe = WhisperFeatureExtractor(feature_size=n_mels)
        out[n_mels] = {}
        d = GOLDEN / f"features-{n_mels}"
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        frames, sums = [], []
        for clip in CLIPS:
            audio = load_wav(SHARED / f"{clip}.wav")
            mel = fe(audio, sampling_rate=16000, return_tensors="np").input_features[0].astype(np.float32)
            assert mel.shape == (n_mels, 3000), mel.shape
            out[n_mels][clip] = mel
            frames.append(mel[:, MEL_FRAMES].T)         # [frames, n_mels]
            sums.append(mel.astype(np.float64).sum(axis=0))
        files = {"frames": save_npy(d / "frames.npy", np.stack(frames), "<f4"),
                 "frame_sum": save_npy(d / "frame_sum.npy", np.stack(sums), "<f4")}
        manifest = {"schema": "hearsay-golden-1", "n_mels": n_mels, "clips": CLIPS,
                    "extractor": f"transformers WhisperFeatureExtractor(feature_size={n_mels}), "
                                 "padding to 30 s (3000 frames), audio = int16 / 32768",
                    "frame_indices": MEL_FRAMES, "files": files}
        (d / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
        log(f"features-{n_mels}: written")
    return out


def write_init_vectors(log):
    """Test vectors for the C++ implementation of the weight scheme (checked against the C++
    reference function when this harness was written)."""
    d = Dims(80, 384, 6, 4, 384, 6, 4, 51865)
    specs = {s.name: s for s in tensor_specs(d)}
    picks = ["model.encoder.conv1.weight", "model.encoder.conv2.bias", "model.encoder.embed_positions.weight",
             "model.encoder.layers.0.self_attn.k_proj.weight", "model.encoder.layers.3.fc1.weight",
             "model.encoder.layers.1.self_attn_layer_norm.weight", "model.decoder.embed_tokens.weight",
             "model.decoder.layers.2.encoder_attn.v_proj.bias", "model.decoder.layer_norm.bias"]
    vectors = []
    for seed in (0, 1, 2, 5, 18446744073709551615):
        for name in picks:
            s = specs[name]
            n = int(np.prod(s.shape))
            for idx in (0, 1, 7, n - 1):
                v = np.float32(init_value_scalar(seed, name, idx, s.mean, s.std))
                assert v == init_values(seed, name, idx + 1, s.mean, s.std)[idx]
                vectors.append({"seed": seed, "name": name, "shape": list(s.shape), "index": idx,
                                "mean": s.mean, "std": s.std, "fnv1a": f"{fnv1a64(name):016x}",
                                "bits": f"{int(v.view(np.uint32)):08x}", "value": float(v)})
    doc = {"schema": "hearsay-init-vectors-1", "dims_for_shapes": dims_json(d), "vectors": vectors}
    (GOLDEN / "init_vectors.json").write_text(json.dumps(doc, indent=1) + "\n")
    log(f"init_vectors.json: {len(vectors)} vectors")


def write_checkpoints(log):
    """Two real transformers checkpoints (save_pretrained) for the loader tests."""
    d = CHECKPOINT_DIMS
    weights = hf_state_dict(d, CHECKPOINT_SEED)
    for dirname, dtype, shard in (("hf-small-fp16-sharded", torch.float16, "1MB"),
                                  ("hf-small-bf16", torch.bfloat16, None)):
        model = build_hf_model(d, CHECKPOINT_SEED, weights).to(dtype)
        model.generation_config = hf_generation_config(d)
        target = MODELS_OUT / dirname
        if target.exists():
            shutil.rmtree(target)
        kwargs = {"max_shard_size": shard} if shard else {}
        model.save_pretrained(target, safe_serialization=True, **kwargs)
        size = sum(f.stat().st_size for f in target.iterdir())
        log(f"{dirname}: {sorted(f.name for f in target.iterdir())}, {size} bytes")
    doc = {"schema": "hearsay-golden-1", "dims": dims_json(d), "seed": CHECKPOINT_SEED,
           "checkpoints": {"hf-small-fp16-sharded": {"dtype": "float16", "max_shard_size": "1MB"},
                           "hf-small-bf16": {"dtype": "bfloat16"}},
           "rounding": "float32 deterministic value -> torch .to(dtype): round to nearest, ties to even",
           "tied": "proj_out.weight is tied to model.decoder.embed_tokens.weight and not stored",
           "environment": environment()}
    (GOLDEN / "checkpoints.json").write_text(json.dumps(doc, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", help="generate only this model (repeatable)")
    ap.add_argument("--skip-checkpoints", action="store_true")
    args = ap.parse_args()

    torch.set_num_threads(1)            # fixed reduction order: reproducible files
    torch.manual_seed(0)

    def log(msg):
        print(msg, flush=True)

    GOLDEN.mkdir(parents=True, exist_ok=True)
    write_init_vectors(log)
    features = compute_features(log)
    for name, dims, seed, full_row in MODELS:
        if args.only and name not in args.only:
            continue
        log(f"model {name}: {dims}, seed {seed}")
        generate_model(name, dims, seed, full_row, features, log)
    if not args.skip_checkpoints:
        write_checkpoints(log)
    total = sum(f.stat().st_size for f in GOLDEN.rglob("*") if f.is_file())
    log(f"golden tree: {total} bytes")


if __name__ == "__main__":
    main()
