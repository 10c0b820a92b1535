#!/usr/bin/env python3
"""Peers of `hearsay-cli bench`: the same fixed work on the same random weights, through
Hugging Face transformers (PyTorch: dynamic cache, static cache, no cache; on the CPU or a
CUDA GPU, float32 or float16; optionally the static cache under torch.compile), faster-whisper
(CTranslate2) and whisper.cpp's own bench tool. Writes one JSON document; hearsay-cli bench
runs this script in the same run and prints the ratios Hearsay/peer.

The fixed work (as whisper.cpp's bench and core/bench/bench_work.h):
  encoder     one 30 s window, including the cross-attention K/V projection
  decode      256 single-token steps, the cache holding 0..255 positions   (ms per token)
  batch       64 steps adding one token to each of 5 sequences             (ms per token)
  prompt      a 256-token prompt, run 16 times                             (ms per token)
Medians of --repeats timed runs after --warmup untimed ones.

Run from the venv made from scripts/bench/requirements-bench.txt:
  .venv-bench/bin/python scripts/bench/peers.py --hf DIR --ggml FILE --threads 2 --json OUT
On a GPU (the transformers peers only; any transformers with EncoderDecoderCache, 4.42 or later):
  python3 scripts/bench/peers.py --hf DIR --device cuda --dtype float16 --peers transformers-static --json OUT
Every timed region is bracketed by torch.cuda.synchronize() on the GPU, so a figure is the time
until the results exist, as Hearsay's (which reads the logits back every step).
"""

import argparse
import contextlib
import inspect
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import time
import wave

import numpy as np

# Everything is local: never let transformers or faster-whisper reach for the Hugging Face Hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

WORK = {"decodeSteps": 256, "batchSteps": 64, "batchBeams": 5, "promptTokens": 256, "promptRuns": 16}  # defaults
FIGURES = ("encoderMs", "decodeMsPerToken", "batchMsPerToken", "promptMsPerToken")


# --- token sequences: the same as core/bench/bench_work.cpp ------------------------------------

def token_ids(n_vocab):
    """Special-token ids of a Whisper vocabulary from its size (as SpecialTokens in core/text)."""
    multilingual = n_vocab >= 51865
    ordinary = 50257 if multilingual else 50256
    languages = n_vocab - 51765 - (1 if multilingual else 0)
    sot = ordinary + 1
    ids = {"ordinary": ordinary, "eot": ordinary, "sot": sot, "firstLanguage": sot + 1,
           "translate": sot + 1 + languages, "transcribe": sot + 2 + languages,
           "startOfPrev": sot + 4 + languages, "noTimestamps": sot + 6 + languages}
    ids["startOfTranscript"] = ([sot, sot + 1, ids["transcribe"], ids["noTimestamps"]] if multilingual
                                else [sot, ids["noTimestamps"]])
    return ids


def bench_tokens(n_vocab, length, variant=0):
    ids = token_ids(n_vocab)
    tokens = ids["startOfTranscript"][:length]
    for i in range(len(tokens), length):
        tokens.append((1000 + 7919 * i + 104729 * variant) % (ids["ordinary"] - 1) + 1)
    return tokens


# --- helpers --------------------------------------------------------------------------------

def read_wav(path):
    """16-bit PCM mono 16 kHz WAV -> float32 samples in [-1, 1)."""
    with wave.open(path, "rb") as w:
        if w.getsampwidth() != 2 or w.getnchannels() != 1 or w.getframerate() != 16000:
            raise ValueError(f"{path}: expected 16-bit PCM mono 16 kHz")
        data = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    return data.astype(np.float32) / 32768.0


def summary(values):
    return {"median": statistics.median(values), "min": min(values), "samples": values}


class Timer:
    """Accumulates wall time of `with timer():` blocks; `sync` (torch.cuda.synchronize on a GPU)
    runs before the clock starts and before it stops, so queued GPU work is counted where it ran."""

    def __init__(self, sync=None):
        self.ms = 0.0
        self.sync = sync

    @contextlib.contextmanager
    def __call__(self):
        if self.sync:
            self.sync()
        start = time.perf_counter()
        yield
        if self.sync:
            self.sync()
        self.ms += (time.perf_counter() - start) * 1000.0


def repeat(warmup, repeats, run_once):
    """run_once() -> dict figure -> value; returns figure -> summary over the timed runs."""
    samples = {}
    for r in range(warmup + repeats):
        values = run_once()
        if r >= warmup:
            for k, v in values.items():
                samples.setdefault(k, []).append(v)
    return {k: summary(v) for k, v in samples.items()}


# --- Hugging Face transformers -------------------------------------------------------------------

class ApiMismatch(RuntimeError):
    """The installed transformers lacks something this peer uses (reported, not a traceback)."""


def transformers_version():
    import transformers
    return tuple(int(p) for p in re.findall(r"\d+", transformers.__version__)[:2]), transformers.__version__


def make_static_cache(static_cache, cfg, batch, length, device, dtype):
    """StaticCache across transformers versions: 4.56+ takes (config, max_cache_len) and sizes its
    tensors at the first update; older ones want the batch, device and dtype up front."""
    params = inspect.signature(static_cache.__init__).parameters
    kwargs = {"config": cfg, "max_cache_len": length}
    for name, value in (("max_batch_size", batch), ("batch_size", batch), ("device", device), ("dtype", dtype)):
        if name in params and not (name == "batch_size" and "max_batch_size" in params):
            kwargs[name] = value
    return static_cache(**kwargs)


def hf_peer(args, variant):
    """variant: 'dynamic' (EncoderDecoderCache of DynamicCache), 'static' (StaticCache), 'none',
    'static-compiled' (StaticCache, the decoder under torch.compile mode="reduce-overhead")."""
    try:
        import torch
        from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache, StaticCache
    except ImportError as e:
        raise ApiMismatch(f"cannot import what the transformers peer needs ({e}); it needs transformers 4.42 or later")
    (major, minor), version = transformers_version()
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(f"--device {args.device}: torch {torch.__version__} sees no CUDA device")
    dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[args.dtype]
    sync = torch.cuda.synchronize if device.type == "cuda" else None

    torch.set_num_threads(args.threads)
    dtype_kw = "dtype" if (major, minor) >= (4, 56) else "torch_dtype"  # renamed in 4.56
    model = WhisperForConditionalGeneration.from_pretrained(args.hf, attn_implementation="sdpa", **{dtype_kw: dtype})
    model = model.to(device=device, dtype=dtype).eval()
    cfg = model.config
    decoder = model.model.decoder
    cross_kw = next((k for k in ("past_key_values", "past_key_value")
                     if k in inspect.signature(decoder.layers[0].encoder_attn.forward).parameters), None)
    if cross_kw is None:
        raise ApiMismatch(f"transformers {version}: WhisperAttention.forward takes neither past_key_values "
                          "nor past_key_value")
    extractor = WhisperFeatureExtractor(feature_size=cfg.num_mel_bins)
    features = extractor(read_wav(args.audio), sampling_rate=16000, return_tensors="pt").input_features
    features = features.to(device=device, dtype=dtype)
    n_vocab = cfg.vocab_size
    work = args.work
    single = bench_tokens(n_vocab, work["decodeSteps"])
    beams = [bench_tokens(n_vocab, work["batchSteps"], b) for b in range(work["batchBeams"])]
    prompt = torch.tensor([bench_tokens(n_vocab, work["promptTokens"])], device=device)
    static = variant in ("static", "static-compiled")
    run_decoder = decoder
    if variant == "static-compiled":
        run_decoder = torch.compile(decoder, mode="reduce-overhead", dynamic=False)

    def new_cache(batch):
        if static:
            try:
                return EncoderDecoderCache(make_static_cache(StaticCache, cfg, batch, cfg.max_target_positions, device, dtype),
                                           make_static_cache(StaticCache, cfg, batch, cfg.max_source_positions, device, dtype))
            except TypeError as e:
                raise ApiMismatch(f"transformers {version}: StaticCache signature not understood: {e}")
        return EncoderDecoderCache(DynamicCache(), DynamicCache())

    def fill_cross(cache, encoded):
        """The cross-attention K/V projection, through transformers' own attention modules: a
        call with a one-row query stores K/V in the cache and marks the layer as updated."""
        query = torch.zeros(encoded.shape[0], 1, cfg.d_model, device=device, dtype=dtype)
        for layer in decoder.layers:
            if cache is None:  # no cache: project and drop (the same work, for the encoder figure)
                layer.encoder_attn.k_proj(encoded)
                layer.encoder_attn.v_proj(encoded)
            else:
                layer.encoder_attn(hidden_states=query, key_value_states=encoded, **{cross_kw: cache})

    takes_positions = [True]  # False once the decoder has refused cache_position (it then counts itself)

    def step(input_ids, encoded, cache, position):
        if cache is None:
            out = run_decoder(input_ids=input_ids, encoder_hidden_states=encoded, use_cache=False)
        else:
            kwargs = {}
            if takes_positions[0]:
                kwargs["cache_position"] = torch.arange(position, position + input_ids.shape[1], device=device)
            try:
                out = run_decoder(input_ids=input_ids, encoder_hidden_states=encoded, past_key_values=cache,
                                  use_cache=True, **kwargs)
            except TypeError as e:
                if "cache_position" not in str(e) or not takes_positions[0]:
                    raise
                takes_positions[0] = False
                out = run_decoder(input_ids=input_ids, encoder_hidden_states=encoded, past_key_values=cache,
                                  use_cache=True)
        return model.proj_out(out.last_hidden_state[:, -1])  # logits of the last position

    use_cache = variant != "none"

    def ids_tensor(rows):
        return torch.tensor(rows, device=device)

    def run_once():
        t = {f: Timer(sync) for f in FIGURES}
        with torch.inference_mode():
            with t["encoderMs"]():
                encoded = model.model.encoder(features).last_hidden_state
                cache = new_cache(1) if use_cache else None
                fill_cross(cache, encoded)
            for i in range(work["decodeSteps"]):
                ids = ids_tensor([single[i:i + 1]]) if use_cache else ids_tensor([single[:i + 1]])
                with t["decodeMsPerToken"]():
                    step(ids, encoded, cache, i)

            encoded5 = encoded.expand(work["batchBeams"], -1, -1).contiguous()
            cache = new_cache(work["batchBeams"]) if use_cache else None
            if use_cache:
                fill_cross(cache, encoded5)
            for s in range(work["batchSteps"]):
                if use_cache:
                    ids = ids_tensor([[b[s]] for b in beams])
                else:
                    ids = ids_tensor([b[:s + 1] for b in beams])
                with t["batchMsPerToken"]():
                    step(ids, encoded5, cache, s)

            for _ in range(work["promptRuns"]):
                cache = new_cache(1) if use_cache else None
                if use_cache:
                    fill_cross(cache, encoded)
                with t["promptMsPerToken"]():
                    step(prompt, encoded, cache, 0)
        return {
            "encoderMs": t["encoderMs"].ms,
            "decodeMsPerToken": t["decodeMsPerToken"].ms / work["decodeSteps"],
            "batchMsPerToken": t["batchMsPerToken"].ms / (work["batchSteps"] * work["batchBeams"]),
            "promptMsPerToken": t["promptMsPerToken"].ms / (work["promptRuns"] * work["promptTokens"]),
        }

    try:
        return measure_hf(args, variant, run_once, sync, device, version, torch)
    except (TypeError, AttributeError) as e:  # an API this version lacks: one line, no traceback
        raise ApiMismatch(f"transformers {version}, torch {torch.__version__}: {type(e).__name__}: {e}")


def measure_hf(args, variant, run_once, sync, device, version, torch):
    compile_s = None
    if variant == "static-compiled":
        # Compilation (and CUDA-graph capture) happens in the first runs; bound it so a slow
        # compiler cannot eat the bench run's time. The warm-up runs absorb it; at least one is forced.
        def expired(signum, frame):
            raise TimeoutError(f"torch.compile did not finish within --compile-timeout {args.compile_timeout} s")

        previous = signal.signal(signal.SIGALRM, expired)
        signal.alarm(args.compile_timeout)
        try:
            start = time.perf_counter()
            run_once()
            compile_s = time.perf_counter() - start
            figures = repeat(max(0, args.warmup - 1), args.repeats, run_once)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    else:
        figures = repeat(args.warmup, args.repeats, run_once)

    where = f"{device.type}" + (f" ({torch.cuda.get_device_name(device)})" if device.type == "cuda" else "")
    notes = {
        "dynamic": "EncoderDecoderCache(DynamicCache, DynamicCache), eager PyTorch, sdpa attention",
        "static": "EncoderDecoderCache(StaticCache 448, StaticCache 1500), eager PyTorch (no torch.compile), sdpa",
        "static-compiled": "EncoderDecoderCache(StaticCache 448, StaticCache 1500), decoder under torch.compile "
                           "mode=reduce-overhead (CUDA graphs on a GPU), sdpa",
        "none": "use_cache=False: every step re-runs all tokens and re-projects the encoder output",
    }[variant] + f"; {where}, {args.dtype}"
    if sync:
        notes += "; torch.cuda.synchronize() around every timed region"
    result = {"figures": figures, "version": f"transformers {version}, torch {torch.__version__}",
              "notes": notes, "device": where, "dtype": args.dtype}
    if compile_s is not None:
        result["compileAndFirstRunS"] = compile_s
    return result


# --- faster-whisper (CTranslate2) ----------------------------------------------------------------

def convert_ct2(hf_dir, out_dir):
    """The HF checkpoint in CTranslate2's format, plus the two files faster-whisper reads beside
    it (without tokenizer.json it would fetch openai/whisper-tiny's from the Hub)."""
    if not os.path.exists(os.path.join(out_dir, "model.bin")):
        from ctranslate2.converters import TransformersConverter
        TransformersConverter(hf_dir).convert(out_dir, quantization="float32", force=True)
    if not os.path.exists(os.path.join(out_dir, "tokenizer.json")):
        from transformers import WhisperTokenizerFast
        WhisperTokenizerFast.from_pretrained(hf_dir).backend_tokenizer.save(os.path.join(out_dir, "tokenizer.json"))
    if not os.path.exists(os.path.join(out_dir, "preprocessor_config.json")):
        # The front end's parameters, as faster-whisper's FeatureExtractor takes them (Whisper's
        # fixed 16 kHz, 25 ms window, 10 ms hop, 30 s chunks); only the mel count varies.
        n_mels = json.load(open(os.path.join(hf_dir, "config.json")))["num_mel_bins"]
        with open(os.path.join(out_dir, "preprocessor_config.json"), "w") as f:
            json.dump({"feature_size": n_mels, "sampling_rate": 16000, "hop_length": 160, "chunk_length": 30,
                       "n_fft": 400}, f)


class FasterWhisperWork:
    """faster-whisper's model loaded once, and the parts of the fixed work run on it. CTranslate2
    has no per-step decoder call: decode figures are differences of generate() runs with forced
    lengths (end-of-text suppressed), which cancel the fixed costs: e.g.
    decode = (T(prompt 4, 256 new) − T(prompt 4, 4 new)) / 252. Lengths are checked."""

    BASE = 4  # a short run whose length can be forced; its fixed costs cancel in the differences

    def __init__(self, args, compute_type):
        import ctranslate2
        import faster_whisper
        from faster_whisper import WhisperModel

        if min(WORK["decodeSteps"], WORK["batchSteps"]) <= self.BASE:
            raise ValueError(f"its figures are differences against a {self.BASE}-step run: the decode and batch steps "
                             f"must be more than {self.BASE} (--decode-steps, --batch-steps)")
        ct2_dir = args.ct2 or os.path.join(os.path.dirname(os.path.abspath(args.hf)),
                                           os.path.basename(os.path.normpath(args.hf)) + "-ct2")
        convert_ct2(args.hf, ct2_dir)
        # int8: CTranslate2 quantises the float32 weights as it loads them (per-row scales, int8 GEMMs).
        fw = WhisperModel(ct2_dir, device="cpu", compute_type=compute_type, cpu_threads=args.threads, num_workers=1)
        self.compute_type = compute_type
        self.version = f"faster-whisper {faster_whisper.__version__}, ctranslate2 {ctranslate2.__version__}"
        self.model = fw.model
        n_vocab = json.load(open(os.path.join(args.hf, "config.json")))["vocab_size"]
        self.ids = token_ids(n_vocab)
        self.sot = self.ids["startOfTranscript"]
        mel = fw.feature_extractor(read_wav(args.audio))  # [n_mels, frames], faster-whisper's own frontend
        frames = 3000
        mel = np.pad(mel, ((0, 0), (0, max(0, frames - mel.shape[1]))))[:, :frames]
        self.features1 = ctranslate2.StorageView.from_array(np.ascontiguousarray(mel[None], dtype=np.float32))
        self.beams = WORK["batchBeams"]
        self.features5 = ctranslate2.StorageView.from_array(
            np.ascontiguousarray(np.repeat(mel[None], self.beams, 0), dtype=np.float32))
        # Tokens after the start-of-transcript sequence would be a forced prefix, which CTranslate2
        # decodes one step per token; previous-text context (<|startofprev|> … before it) is what it
        # prefills in one pass. So the 256-token prompt is <|startofprev|> + 251 text tokens + SOT.
        sot = self.sot
        context = bench_tokens(n_vocab, WORK["promptTokens"] - len(sot) - 1 + len(sot))[len(sot):]
        self.long_prompt = [self.ids["startOfPrev"]] + context + sot
        assert len(self.long_prompt) == WORK["promptTokens"]
        self.encoded5 = None
        self.lengths = {}  # (batch, prompt length, tokens) -> max_length that yields exactly that many tokens

    def run_generate(self, encoded, prompts, max_length):
        return self.model.generate(encoded, prompts, beam_size=1, max_length=max_length, suppress_blank=False,
                                   suppress_tokens=[self.ids["eot"]], return_scores=False)

    def generate(self, encoded, prompts, new_tokens):
        """ms of one generate() that makes exactly new_tokens tokens."""
        # CTranslate2 4.8's Whisper.generate does not run max_length steps (measured: 8 -> 4,
        # 20 -> 10, 512 -> 256 tokens), so the max_length giving exactly new_tokens is found
        # once, untimed, and every timed run is checked.
        key = (len(prompts), len(prompts[0]), new_tokens)
        if key not in self.lengths:
            # With only the SOT sequence, max_length // 2 steps ran; with previous-text context,
            # max_length counts the prompt too. Try both, then correct by the shortfall.
            made = {}
            for max_length in (2 * new_tokens, len(prompts[0]) + new_tokens):
                made[max_length] = len(self.run_generate(encoded, prompts, max_length)[0].sequences_ids[0])
                if made[max_length] == new_tokens:
                    break
            max_length = max(made, key=lambda m: (made[m] == new_tokens, made[m]))
            for _ in range(8):
                if made[max_length] == new_tokens:
                    break
                max_length += new_tokens - made[max_length]
                made[max_length] = len(self.run_generate(encoded, prompts, max_length)[0].sequences_ids[0])
            self.lengths[key] = max_length
        start = time.perf_counter()
        results = self.run_generate(encoded, prompts, self.lengths[key])
        ms = (time.perf_counter() - start) * 1000.0
        for r in results:
            if len(r.sequences_ids[0]) != new_tokens:
                raise RuntimeError(f"generate() made {len(r.sequences_ids[0])} tokens, {new_tokens} were forced")
        return ms

    def encode(self):
        """(the encoded window, ms of encode())."""
        start = time.perf_counter()
        encoded = self.model.encode(self.features1, to_cpu=False)
        return encoded, (time.perf_counter() - start) * 1000.0

    def encoder_figure(self, encode_ms, short, decode):
        """The cross K/V projection runs inside generate's first step: charge the short run's cost
        beyond its steady decode steps to the encoder, as Hearsay's encoder figure includes it."""
        return encode_ms + max(0.0, short - self.BASE * decode)

    def decode_per_token(self, encoded, short):
        many = self.generate(encoded, [self.sot], WORK["decodeSteps"])
        return (many - short) / (WORK["decodeSteps"] - self.BASE)

    def run_once(self):
        base, sot, beams = self.BASE, self.sot, self.beams
        encoded, encode_ms = self.encode()
        short = self.generate(encoded, [sot], base)
        decode = self.decode_per_token(encoded, short)
        if self.encoded5 is None:  # the five beams' window, encoded once (untimed)
            self.encoded5 = self.model.encode(self.features5, to_cpu=False)
        encoded5 = self.encoded5
        b_short = self.generate(encoded5, [sot] * beams, base)
        b_many = self.generate(encoded5, [sot] * beams, WORK["batchSteps"])
        batch = (b_many - b_short) / ((WORK["batchSteps"] - base) * beams)
        # Prompt: the prefill of the long prompt minus that of the SOT-only one (same new tokens).
        p_long = statistics.median(self.generate(encoded, [self.long_prompt], base) for _ in range(3))
        prompt = (p_long - short) / (len(self.long_prompt) - len(sot))
        return {"encoderMs": self.encoder_figure(encode_ms, short, decode), "decodeMsPerToken": decode,
                "batchMsPerToken": batch, "promptMsPerToken": prompt, "encodeOnlyMs": encode_ms}

    def notes(self):
        return (f"compute_type {self.compute_type}, greedy, end-of-text suppressed so lengths are forced; figures are "
                "differences of generate() runs; encoderMs = encode() + the short run's excess over its steps "
                "(the cross K/V projection)")


def fw_peer(args, compute_type="float32"):
    work = FasterWhisperWork(args, compute_type)
    figures = repeat(args.warmup, args.repeats, work.run_once)
    return {"figures": figures, "version": work.version, "notes": work.notes()}


FW_COMPUTE_TYPES = {"faster-whisper": "float32", "faster-whisper-int8": "int8"}


def serve_encoder(args, name):
    """--serve-encoder: one faster-whisper peer kept loaded, answering each line "encoder" on stdin
    with one line of JSON on stdout, {"encoderMs", "encodeOnlyMs"}, for one encoder run (the same
    figure as the fixed work's); EOF or "quit" ends it. The first line it writes says it is ready
    ({"ready": true, "version", "notes"}) or why it cannot be ({"error"}). hearsay-cli bench
    --encoder-pairs asks it between Hearsay's own runs."""
    reply = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # whatever else writes to stdout reaches stderr, not the answers

    def answer(document):
        reply.write(json.dumps(document) + "\n")

    try:
        if name not in FW_COMPUTE_TYPES:
            raise ValueError(f"--serve-encoder serves {' or '.join(FW_COMPUTE_TYPES)}, not {name}")
        if not args.hf:
            raise ValueError("needs the Hugging Face checkpoint (--hf)")
        work = FasterWhisperWork(args, FW_COMPUTE_TYPES[name])
        # The decode step's time, which the encoder figure subtracts from the short run: the median
        # of three untimed measurements, once (it does not depend on the encoder's speed).
        encoded, _ = work.encode()
        decodes = []
        for _ in range(3):
            short = work.generate(encoded, [work.sot], work.BASE)
            decodes.append(work.decode_per_token(encoded, short))
        decode = statistics.median(decodes)
    except Exception as e:  # reported as the answer, not as a traceback
        answer({"error": f"{type(e).__name__}: " + str(e).strip().split("\n\n")[0]})
        return 1
    answer({"ready": True, "version": work.version, "notes": work.notes(), "decodeMsPerToken": decode})
    for line in sys.stdin:
        request = line.strip()
        if request == "quit":
            break
        if request != "encoder":
            answer({"error": f"unknown request {request!r} (known: encoder, quit)"})
            continue
        try:
            encoded, encode_ms = work.encode()
            short = work.generate(encoded, [work.sot], work.BASE)
            answer({"encoderMs": work.encoder_figure(encode_ms, short, decode), "encodeOnlyMs": encode_ms})
        except Exception as e:
            answer({"error": f"{type(e).__name__}: {e}"})
    return 0


# --- whisper.cpp ---------------------------------------------------------------------------------

TIMING = re.compile(r"whisper_print_timings:\s+(\w+) time =\s*([\d.]+) ms /\s*(\d+) runs \(\s*([\d.]+) ms per run\)")


def whispercpp_peer(args):
    if not args.ggml:
        raise RuntimeError("no ggml model given (--ggml)")
    tool = args.whisper_bench
    if not tool:
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "build_whispercpp.sh")
        built = subprocess.run([script], check=True, capture_output=True, text=True)
        tool = built.stdout.strip().splitlines()[-1]

    def run_once():
        out = subprocess.run([tool, "-m", args.ggml, "-t", str(args.threads)], capture_output=True, text=True)
        text = out.stdout + out.stderr
        if out.returncode != 0:
            raise RuntimeError(f"whisper-bench exited with {out.returncode}: {text[-2000:]}")
        t = {m.group(1): (float(m.group(4)), int(m.group(3))) for m in TIMING.finditer(text)}
        for key in ("encode", "decode", "batchd", "prompt"):
            if key not in t:
                raise RuntimeError(f"whisper-bench printed no '{key} time' line: {text[-2000:]}")
        run_once.system_info = next((l for l in text.splitlines() if l.startswith("system_info")), "")
        run_once.runs = {k: v[1] for k, v in t.items()}
        return {"encoderMs": t["encode"][0], "decodeMsPerToken": t["decode"][0],
                "batchMsPerToken": t["batchd"][0], "promptMsPerToken": t["prompt"][0]}

    figures = repeat(0, args.repeats, run_once)  # whisper-bench warms up itself (2 heat passes)
    return {"figures": figures, "version": "whisper.cpp 1.8.5 (pywhispercpp 1.5.1 sdist), whisper-bench",
            "notes": "its own bench tool: zero mel, token 0, batch = 5 tokens of one sequence at n_past 0; "
                     + getattr(run_once, "system_info", ""),
            "runs": getattr(run_once, "runs", {})}


# --- main ----------------------------------------------------------------------------------------

OPT_IN = ("transformers-static-compiled",)  # not in the default list: compiling takes minutes
ALIASES = {"hf": "transformers", "hf-dynamic": "transformers", "hf-static": "transformers-static",
           "hf-static-compiled": "transformers-static-compiled", "hf-nocache": "transformers-nocache"}

PEERS = {
    "transformers": lambda a: hf_peer(a, "dynamic"),
    "transformers-static": lambda a: hf_peer(a, "static"),
    "transformers-static-compiled": lambda a: hf_peer(a, "static-compiled"),
    "transformers-nocache": lambda a: hf_peer(a, "none"),
    "faster-whisper": fw_peer,
    "faster-whisper-int8": lambda a: fw_peer(a, "int8"),
    "whisper.cpp": whispercpp_peer,
}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hf", help="Hugging Face checkpoint directory (make-test-model --format hf); every peer but "
                   "whisper.cpp reads it")
    p.add_argument("--ggml", help="whisper.cpp ggml file with the same weights (make-test-model --format ggml)")
    p.add_argument("--ct2", help="CTranslate2 model directory (default: converted next to --hf)")
    p.add_argument("--whisper-bench", help="whisper.cpp's whisper-bench (default: built by build_whispercpp.sh)")
    p.add_argument("--audio", default=os.path.join(here, "..", "..", "..", "shared", "data", "speech-30s-a.wav"))
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--warmup", type=int, default=1)
    p.add_argument("--peers", default=",".join(n for n in PEERS if n not in OPT_IN),
                   help="comma-separated subset of " + ", ".join(PEERS) + " (aliases: " + ", ".join(ALIASES) + ")")
    p.add_argument("--device", default="cpu", help="transformers peers: torch device, cpu or cuda[:N] (default cpu)")
    p.add_argument("--dtype", default="float32", choices=("float32", "float16", "bfloat16"),
                   help="transformers peers: weights and activations (default float32)")
    p.add_argument("--compile", action="store_true",
                   help="add transformers-static-compiled (torch.compile mode=reduce-overhead) to the peers")
    p.add_argument("--compile-timeout", type=int, default=300, help="seconds allowed for compiling (default 300)")
    for key, flag in (("decodeSteps", "--decode-steps"), ("batchSteps", "--batch-steps"), ("batchBeams", "--batch-beams"),
                      ("promptTokens", "--prompt-tokens"), ("promptRuns", "--prompt-runs")):
        p.add_argument(flag, dest=key, type=int, default=WORK[key], help=f"fixed work (default {WORK[key]})")
    p.add_argument("--json", help="write the results here (default: stdout)")
    p.add_argument("--serve-encoder", action="store_true",
                   help="keep the one peer of --peers (faster-whisper or faster-whisper-int8) loaded and answer "
                        "each line 'encoder' on stdin with one encoder run's figures, a JSON line on stdout")
    args = p.parse_args()
    args.work = {k: getattr(args, k) for k in WORK}
    if any(v < 1 for v in args.work.values()):
        p.error("the fixed work's counts must be positive")
    WORK.update(args.work)  # faster-whisper's figures follow it too (whisper.cpp's bench has its own)
    names = [ALIASES.get(n.strip(), n.strip()) for n in args.peers.split(",") if n.strip()]
    if args.compile and "transformers-static-compiled" not in names:
        names.append("transformers-static-compiled")
    if args.serve_encoder:
        if len(names) != 1:
            p.error("--serve-encoder serves one peer: give it alone in --peers")
        return serve_encoder(args, names[0])

    report = {"schema": "hearsay-bench-peers/1", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "python": platform.python_version(), "threads": args.threads, "repeats": args.repeats,
              "warmup": args.warmup, "work": args.work, "hf": os.path.abspath(args.hf) if args.hf else None, "ggml": args.ggml,
              "device": args.device, "dtype": args.dtype,
              "audio": os.path.abspath(args.audio), "peers": {}, "errors": {}}
    for name in names:
        if name not in PEERS:
            report["errors"][name] = "unknown peer (known: " + ", ".join(PEERS) + ")"
            continue
        if name != "whisper.cpp" and not args.hf:
            report["errors"][name] = "needs the Hugging Face checkpoint (--hf)"
            continue
        print(f"peers: {name} ...", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            report["peers"][name] = PEERS[name](args)
        except Exception as e:  # a peer that cannot run is reported, and the others still run
            report["errors"][name] = f"{type(e).__name__}: " + str(e).strip().split("\n\n")[0]
            print(f"peers: {name} failed: {report['errors'][name]}", file=sys.stderr, flush=True)
        print(f"peers: {name} done in {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)

    text = json.dumps(report, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    else:
        print(text)
    return 0 if report["peers"] else 1


if __name__ == "__main__":
    sys.exit(main())
