# Builds the two independent reference implementations (transformers and openai-whisper) from
# one deterministic weight set, and the Whisper special-token facts both of them need.
import torch

from deterministic_weights import Dims, hf_state_dict, openai_name


def load_openai_whisper():
    """Import openai-whisper's model, decoding and tokenizer modules (the package __init__ also
    imports whisper.timing, which needs numba; it is pinned, so the plain import is used)."""
    import whisper.decoding
    import whisper.model
    import whisper.tokenizer
    return whisper


def openai_tokenizer(dims: Dims, language=None, task=None):
    whisper = load_openai_whisper()
    multilingual = dims.n_vocab >= 51865
    num_languages = dims.n_vocab - 51765 - int(multilingual)
    return whisper.tokenizer.get_tokenizer(multilingual, num_languages=num_languages,
                                           language=language, task=task)


def special_tokens(dims: Dims) -> dict:
    """Ids of Whisper's special tokens for this vocabulary (from openai-whisper's tokenizer)."""
    tok = openai_tokenizer(dims)
    # openai-whisper lists its language tokens in the order of a Python set (varies per process
    # with string hashing): sort them by id, which is the canonical order (en, zh, de, ...).
    languages = sorted(zip(tok.all_language_tokens, tok.all_language_codes))
    out = {
        "eot": tok.eot,
        "sot": tok.sot,
        "translate": tok.translate,
        "transcribe": tok.transcribe,
        "sot_lm": tok.sot_lm,
        "sot_prev": tok.sot_prev,
        "no_speech": tok.no_speech,
        "no_timestamps": tok.no_timestamps,
        "timestamp_begin": tok.timestamp_begin,
        "language_tokens": [t for t, _ in languages],
        "language_codes": [c for _, c in languages],
    }
    return out


def openai_suppress_tokens(dims: Dims) -> list:
    """The token set openai-whisper suppresses with the default suppress_tokens="-1"
    (non-speech symbols plus the task/start/no-speech specials)."""
    tok = openai_tokenizer(dims, language="en" if dims.n_vocab >= 51865 else None, task="transcribe")
    s = set(tok.non_speech_tokens)
    s.update([tok.transcribe, tok.translate, tok.sot, tok.sot_prev, tok.sot_lm])
    if tok.no_speech is not None:
        s.add(tok.no_speech)
    return sorted(s)


def hf_generation_config(dims: Dims):
    """A GenerationConfig equivalent to an official Whisper checkpoint's, for this vocabulary."""
    from transformers import GenerationConfig
    sp = special_tokens(dims)
    multilingual = dims.n_vocab >= 51865
    gc = GenerationConfig(
        decoder_start_token_id=sp["sot"],
        bos_token_id=sp["eot"],
        eos_token_id=sp["eot"],
        pad_token_id=sp["eot"],
        max_length=dims.n_text_ctx,
        suppress_tokens=openai_suppress_tokens(dims),
        begin_suppress_tokens=[220, sp["eot"]],
        no_timestamps_token_id=sp["no_timestamps"],
        prev_sot_token_id=sp["sot_prev"],
        max_initial_timestamp_index=50,
        is_multilingual=multilingual,
        return_timestamps=False,
    )
    if multilingual:
        gc.lang_to_id = {f"<|{c}|>": t for c, t in zip(sp["language_codes"], sp["language_tokens"])}
        gc.task_to_id = {"transcribe": sp["transcribe"], "translate": sp["translate"]}
    return gc


def hf_config(dims: Dims):
    from transformers import WhisperConfig
    sp = special_tokens(dims)
    return WhisperConfig(
        vocab_size=dims.n_vocab,
        num_mel_bins=dims.n_mels,
        d_model=dims.n_audio_state,
        encoder_layers=dims.n_audio_layer,
        encoder_attention_heads=dims.n_audio_head,
        decoder_layers=dims.n_text_layer,
        decoder_attention_heads=dims.n_text_head,
        encoder_ffn_dim=4 * dims.n_audio_state,
        decoder_ffn_dim=4 * dims.n_text_state,
        max_source_positions=dims.n_audio_ctx,
        max_target_positions=dims.n_text_ctx,
        decoder_start_token_id=sp["sot"],
        bos_token_id=sp["eot"],
        eos_token_id=sp["eot"],
        pad_token_id=sp["eot"],
        begin_suppress_tokens=[220, sp["eot"]],
        suppress_tokens=openai_suppress_tokens(dims),
        activation_function="gelu",
        tie_word_embeddings=True,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        torch_dtype="float32",
    )


def build_hf_model(dims: Dims, seed: int, weights=None):
    """transformers' WhisperForConditionalGeneration with the deterministic weights, eval, fp32,
    eager attention."""
    from transformers import WhisperForConditionalGeneration
    assert dims.n_audio_state == dims.n_text_state
    torch.manual_seed(0)
    model = WhisperForConditionalGeneration(hf_config(dims))
    model.config._attn_implementation = "eager"
    model.generation_config = hf_generation_config(dims)
    weights = weights if weights is not None else hf_state_dict(dims, seed)
    state = {k: torch.from_numpy(v) for k, v in weights.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or set(missing) != {"proj_out.weight"}:
        raise RuntimeError(f"HF state dict mismatch: missing={missing} unexpected={unexpected}")
    model.tie_weights()
    assert model.proj_out.weight.data_ptr() == model.model.decoder.embed_tokens.weight.data_ptr()
    model.eval()
    model.to(torch.float32)
    return model


def build_openai_model(dims: Dims, seed: int, weights=None):
    """openai-whisper's Whisper with the same weights under its own names."""
    whisper = load_openai_whisper()
    md = whisper.model.ModelDimensions(
        n_mels=dims.n_mels, n_audio_ctx=dims.n_audio_ctx, n_audio_state=dims.n_audio_state,
        n_audio_head=dims.n_audio_head, n_audio_layer=dims.n_audio_layer, n_vocab=dims.n_vocab,
        n_text_ctx=dims.n_text_ctx, n_text_state=dims.n_text_state, n_text_head=dims.n_text_head,
        n_text_layer=dims.n_text_layer)
    model = whisper.model.Whisper(md)
    weights = weights if weights is not None else hf_state_dict(dims, seed)
    state = {openai_name(k): torch.from_numpy(v) for k, v in weights.items()}
    model.load_state_dict(state, strict=True)
    model.eval()
    model.to(torch.float32)
    return model
